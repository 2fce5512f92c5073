// A worker thread of the signature RecoveryPool (recovery-pool.ts): recovers the signers of
// personal_sign signatures off the event loop. Plain JavaScript, so that it starts the same way
// from the sources and from a build; it needs only the two native addons the service already uses.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { parentPort } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const secp256k1 = require('secp256k1/bindings');
const Keccak = require('node-gyp-build')(dirname(require.resolve('keccak/package.json')));
const keccak = new Keccak();

function keccak256(...parts) {
  keccak.initialize(1088, 512);
  for (const part of parts) keccak.absorb(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
  return keccak.squeeze(32);
}

/** The lowercase address whose key signed `message` (EIP-191 personal_sign), or null. */
function signerOf({ message, compact, recovery }) {
  try {
    const digest = keccak256(Buffer.from(`\x19Ethereum Signed Message:\n${message.length}`), message);
    const publicKey = secp256k1.ecdsaRecover(compact, recovery, digest, false);
    return `0x${Buffer.from(keccak256(publicKey.subarray(1)))
      .subarray(12)
      .toString('hex')}`;
  } catch {
    return null;
  }
}

parentPort.on('message', (batch) => {
  parentPort.postMessage({ ids: batch.map((job) => job.id), signers: batch.map(signerOf) });
});
