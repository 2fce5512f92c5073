import { createHash } from 'node:crypto';
import type { Logger } from '../logging/logger.ts';
import { SERVICE_CHAIN } from '../model/audit.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import { offsiteEntry } from './offsite-audit.ts';
import { OffsiteObjectMissing, type OffsiteTarget } from './target/offsite-target.ts';

export interface CheckResult {
  ok: boolean;
  objects: number;
  bytes: number;
  /** The first object that is missing or holds other bytes than were shipped. */
  failure: string | undefined;
}

/**
 * The service's own check of its copy (OFFSITE_CHECK_INTERVAL; docs/offsite.md, "Checks and
 * drills"). It holds no identity, so it cannot decrypt: it reads every object it shipped back and
 * compares the ciphertext's sha256 with the one it recorded when it wrote it, which finds an object
 * deleted, truncated or altered at the target. Its result goes to `offsite status`, a metric and
 * an entry in the service-wide chain; a failure is logged at error.
 */
export async function checkCopy(
  store: MetadataStore,
  target: OffsiteTarget,
  logger: Logger,
  now: () => number = Date.now,
): Promise<CheckResult> {
  const result: CheckResult = { ok: true, objects: 0, bytes: 0, failure: undefined };
  for await (const object of store.offsite.objects()) {
    const hash = createHash('sha256');
    let size = 0;
    try {
      for await (const chunk of await target.get(object.name)) {
        hash.update(chunk);
        size += chunk.byteLength;
      }
    } catch (error) {
      if (!(error instanceof OffsiteObjectMissing)) throw error;
      result.failure = `${object.name} is missing from the target`;
      break;
    }
    result.objects++;
    result.bytes += size;
    if (hash.digest('hex') !== object.cipherSha256 || size !== object.size) {
      result.failure = `${object.name} holds ${size} bytes that are not the ${object.size} shipped (its sha256 differs)`;
      break;
    }
  }
  result.ok = result.failure === undefined;
  const at = now();
  const summary = result.ok ? `ok: ${result.objects} objects, ${result.bytes} bytes` : `failed: ${result.failure}`;
  await store.offsite.noteCheck(summary, at);
  await store.files.appendAudit(
    offsiteEntry(SERVICE_CHAIN, 'offsite.check', result.ok ? 'ok' : 'failed', { target: target.description, ...result }, at),
  );
  if (!result.ok) logger.error({ target: target.description, failure: result.failure }, 'the off-site copy failed its check');
  return result;
}
