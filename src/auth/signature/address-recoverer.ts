import { createRequire } from 'node:module';
import { secp256k1 as nobleSecp256k1 } from '@noble/curves/secp256k1.js';
import type { RecoverableSignature } from './parse-signature.ts';
import { addressOfPublicKey } from './personal-message-hash.ts';

/** Recovers the signer's lowercase address from a digest, or undefined when no key fits. */
export interface AddressRecoverer {
  readonly implementation: 'native' | 'noble';
  recover(digest: Uint8Array, signature: RecoverableSignature): string | undefined;
}

interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

function loadNative(): NativeSecp256k1 | undefined {
  try {
    // The package's JS fallback is slow; only its compiled binding is worth using.
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;
  } catch {
    return undefined;
  }
}

function nativeRecoverer(native: NativeSecp256k1): AddressRecoverer {
  return {
    implementation: 'native',
    recover(digest, signature) {
      try {
        return addressOfPublicKey(native.ecdsaRecover(signature.compact, signature.recovery, digest, false));
      } catch {
        return undefined;
      }
    },
  };
}

function nobleRecoverer(): AddressRecoverer {
  return {
    implementation: 'noble',
    recover(digest, signature) {
      try {
        const point = nobleSecp256k1.Signature.fromBytes(signature.compact, 'compact')
          .addRecoveryBit(signature.recovery)
          .recoverPublicKey(digest);
        return addressOfPublicKey(point.toBytes(false));
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Native libsecp256k1 is about 20× faster than pure JS here; where its binary does not load
 * (an unusual platform) the service still works, and says so once.
 */
export function createAddressRecoverer(options: { preferNative?: boolean; onFallback?: (reason: string) => void } = {}): AddressRecoverer {
  const native = options.preferNative === false ? undefined : loadNative();
  if (native) return nativeRecoverer(native);
  if (options.preferNative !== false) options.onFallback?.('native secp256k1 binding did not load; using @noble/curves');
  return nobleRecoverer();
}
