import { newTargetId, TARGET_MARKER } from './object-names.ts';
import type { OffsiteTarget } from './target/offsite-target.ts';

const TARGET_MARKER_FORMAT = 'wallet-admin/offsite-target/1';

/**
 * The target's id (docs/offsite.md, "The target's id"): the one its marker object names when it
 * holds a copy already (a service rebuilt from it, or a URL set back), so that the copy goes on as
 * one; else a new one, written there first. A tenant's own copy names its tenant in the marker: a
 * target holding another tenant's copy, or the operator's, is refused, and so is a tenant's
 * target for the operator's copy. The marker is plaintext and says nothing else.
 */
export async function claimTarget(target: OffsiteTarget, tenant?: string): Promise<string> {
  const existing = await readTargetMarker(target);
  if (existing !== undefined) return owned(target, existing, tenant);
  const id = newTargetId();
  const marker = `${JSON.stringify({ format: TARGET_MARKER_FORMAT, target: id, ...(tenant === undefined ? {} : { tenant }) })}\n`;
  if ((await target.putNew(TARGET_MARKER, Buffer.from(marker))).written) return id;
  // Another instance wrote it first: its id is the target's.
  const written = await readTargetMarker(target);
  return written === undefined ? id : owned(target, written, tenant);
}

function owned(target: OffsiteTarget, marker: { target: string; tenant?: string }, tenant: string | undefined): string {
  if (marker.tenant !== tenant) {
    const holds = marker.tenant === undefined ? "the operator's off-site copy" : `another tenant's copy (${marker.tenant})`;
    const wants = tenant === undefined ? "the operator's copy" : `tenant ${tenant}'s copy`;
    throw new Error(`${target.description} holds ${holds}: ${wants} needs a target of its own`);
  }
  return marker.target;
}

async function readTargetMarker(target: OffsiteTarget): Promise<{ target: string; tenant?: string } | undefined> {
  if ((await target.head(TARGET_MARKER)) === undefined) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of await target.get(TARGET_MARKER)) chunks.push(Buffer.from(chunk));
  const marker = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { format?: string; target?: unknown; tenant?: unknown };
  if (
    marker.format !== TARGET_MARKER_FORMAT ||
    typeof marker.target !== 'string' ||
    !['string', 'undefined'].includes(typeof marker.tenant)
  ) {
    throw new Error(
      `${target.description} holds a ${TARGET_MARKER} this service did not write: ship to an empty target or one of its own copies`,
    );
  }
  return { target: marker.target, ...(typeof marker.tenant === 'string' ? { tenant: marker.tenant } : {}) };
}
