import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { createAddressRecoverer } from '../../src/auth/signature/address-recoverer.ts';
import { parseRecoverableSignature } from '../../src/auth/signature/parse-signature.ts';
import { recoverPersonalSigner } from '../../src/auth/signature/recover-personal-signer.ts';
import { readSiweMessage, type SiweMessage } from '../../src/auth/siwe/siwe-message.ts';
import { checkSiweRules } from '../../src/auth/siwe-rules.ts';

const VECTORS = new URL('../fixtures/vectors/siwe/', import.meta.url);
const SETS = ['', 'signinwithethereum-siwe/'];

type VerificationCase = Omit<SiweMessage, 'version'> & {
  version: string;
  signature: string;
  time?: string;
  domainBinding?: string;
  matchNonce?: string;
};

/**
 * Lays the fields out as EIP-4361 text without validating them (the vectors include invalid
 * dates that a validating formatter would refuse to build; our parser must refuse them instead).
 */
function layOut(c: VerificationCase): string {
  const lines = [`${c.domain} wants you to sign in with your Ethereum account:`, c.address, ''];
  if (c.statement !== undefined) lines.push(c.statement, '');
  lines.push(`URI: ${c.uri}`, `Version: ${c.version}`, `Chain ID: ${c.chainId}`, `Nonce: ${c.nonce}`, `Issued At: ${c.issuedAt}`);
  if (c.expirationTime !== undefined) lines.push(`Expiration Time: ${c.expirationTime}`);
  if (c.notBefore !== undefined) lines.push(`Not Before: ${c.notBefore}`);
  if (c.requestId !== undefined) lines.push(`Request ID: ${c.requestId}`);
  if (c.resources !== undefined) lines.push('Resources:', ...c.resources.map((r) => `- ${r}`));
  return lines.join('\n');
}

for (const recoverer of [createAddressRecoverer(), createAddressRecoverer({ preferNative: false })]) {
  /** Verifies as the service does, minus its own policy (see message-claims.ts): EIP-4361 semantics only. */
  function verify(c: VerificationCase): void {
    const text = layOut(c);
    const { message, times } = readSiweMessage(text)!;
    checkSiweRules(message, times, {
      domains: [(c.domainBinding ?? c.domain).toLowerCase()],
      schemes: new Map(), // the vectors are laid out without a scheme, which is then not compared
      address: c.address,
      time: c.time ? Date.parse(c.time) : Date.now(),
      skewMs: 0,
      ...(c.matchNonce !== undefined ? { nonce: c.matchNonce } : {}),
    });
    const signer = recoverPersonalSigner(recoverer, parseRecoverableSignature(c.signature), new TextEncoder().encode(text));
    if (signer !== c.address.toLowerCase()) throw new Error('signature does not match the address');
  }

  for (const set of SETS) {
    const load = (name: string) => JSON.parse(readFileSync(new URL(set + name, VECTORS), 'utf8')) as Record<string, VerificationCase>;
    describe(`SIWE verification vectors ${set || 'spruceid/'} (${recoverer.implementation} secp256k1)`, () => {
      for (const [name, c] of Object.entries(load('verification_positive.json'))) {
        test(`positive: ${name}`, () => assert.doesNotThrow(() => verify(c)));
      }
      for (const [name, c] of Object.entries(load('verification_negative.json'))) {
        test(`negative: ${name}`, () => assert.throws(() => verify(c)));
      }
    });
  }
}
