import { createRequire } from 'node:module';
import { keccak_256 } from '@noble/hashes/sha3.js';

interface NativeKeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Uint8Array): void;
  squeeze(length: number): Uint8Array;
}

type NativeKeccak = new () => NativeKeccakState;

function loadNative(): NativeKeccak | undefined {
  try {
    // The package's stream wrapper costs more than the hashing; its compiled state is used directly.
    const require = createRequire(import.meta.url);
    const state = require('node-gyp-build')(require('node:path').dirname(require.resolve('keccak/package.json'))) as unknown;
    return typeof state === 'function' ? (state as NativeKeccak) : undefined;
  } catch {
    return undefined;
  }
}

const Native = loadNative();

/**
 * Keccak-256 (Ethereum's, not SHA3-256) of the concatenated parts. Every sign-in hashes twice (the
 * EIP-191 digest and the recovered key's address), so the native implementation is used where
 * its binary loads — about 3× faster than pure JS on a sign-in message (bench: auth-cold).
 */
export const keccak256: (...parts: Uint8Array[]) => Uint8Array = Native ? nativeKeccak256(new Native()) : nobleKeccak256;

/**
 * One native state for every hash: initialize() resets it, and a hash runs start to end without
 * yielding, so no two ever share it. Creating a state per hash cost half of a short message's hash.
 */
function nativeKeccak256(state: NativeKeccakState): (...parts: Uint8Array[]) => Uint8Array {
  return (...parts) => {
    state.initialize(1088, 512);
    // The binding takes Buffers; a view over the same memory costs no copy.
    for (const part of parts) state.absorb(Buffer.isBuffer(part) ? part : Buffer.from(part.buffer, part.byteOffset, part.byteLength));
    // Keccak's own padding (0x01) is applied by squeeze; absorbLastFewBits is for SHA-3/SHAKE suffixes.
    return state.squeeze(32);
  };
}

function nobleKeccak256(...parts: Uint8Array[]): Uint8Array {
  const hasher = keccak_256.create();
  for (const part of parts) hasher.update(part);
  return hasher.digest();
}

export const keccakImplementation: 'native' | 'noble' = Native ? 'native' : 'noble';
