import { createHash } from 'node:crypto';
import type { OffsiteTarget } from './target/offsite-target.ts';

/**
 * Writes an (already encrypted) object once, hashing its ciphertext on the way; an object already
 * there (a round that crashed sent it) is read back for its hash and size instead.
 */
export async function putEncrypted(
  target: OffsiteTarget,
  name: string,
  ciphertext: AsyncIterable<Uint8Array>,
): Promise<{ sha256: string; size: number; written: boolean }> {
  const hash = createHash('sha256');
  let size = 0;
  const hashed = (async function* () {
    for await (const chunk of ciphertext) {
      hash.update(chunk);
      size += chunk.byteLength;
      yield chunk;
    }
  })();
  const { written } = await target.putNew(name, hashed);
  if (written) return { sha256: hash.digest('hex'), size, written };
  const again = createHash('sha256');
  let stored = 0;
  for await (const chunk of await target.get(name)) {
    again.update(chunk);
    stored += chunk.byteLength;
  }
  return { sha256: again.digest('hex'), size: stored, written };
}
