import { type AuditChainEntry, entryHash, ZERO_HASH } from './chain-entry.ts';
import { checkIntents } from './intent-check.ts';

/**
 * Checks an export of a tenant's audit chain, line by line, from nothing but its text
 * (docs/audit-chain.md, "Verifying"): no service, no database, no network. Stops at the first entry
 * that fails and names it: a verifier that went on would report the damage's echoes, not its place.
 */

/** A head published elsewhere (docs/audit-chain.md, "Publishing the head"): the export must reach it. */
export interface PublishedHead {
  seq: number;
  hash: string;
}

export interface VerifyOptions {
  head?: PublishedHead | undefined;
}

export interface ExportFailure {
  /** The 1-based line of the file. */
  line: number;
  /** The entry's seq and id, when the line was an entry. */
  seq: number | null;
  id: string | null;
  reason: string;
}

export interface ExportSummary {
  ok: boolean;
  entries: number;
  tenantId: string | null;
  /** The last entry's seq and hash: the head this export reaches. */
  head: PublishedHead;
  intents: { entries: number; verifiedSignatures: number; needChainLookup: number; quorumsNeedingChainLookup: number };
  /** What the chain's genesis entry says was written before chaining, when the export has one. */
  preChain: { entries: number; firstSeq: number; lastSeq: number; chainedAt: number } | null;
  failure: ExportFailure | null;
}

const HASH = /^[0-9a-f]{64}$/;

export async function verifyExport(lines: AsyncIterable<string> | Iterable<string>, options: VerifyOptions = {}): Promise<ExportSummary> {
  const summary: ExportSummary = {
    ok: true,
    entries: 0,
    tenantId: null,
    head: { seq: 0, hash: ZERO_HASH },
    intents: { entries: 0, verifiedSignatures: 0, needChainLookup: 0, quorumsNeedingChainLookup: 0 },
    preChain: null,
    failure: null,
  };
  const failed = (line: number, entry: Partial<AuditChainEntry> | null, reason: string): ExportSummary => ({
    ...summary,
    ok: false,
    failure: { line, seq: typeof entry?.seq === 'number' ? entry.seq : null, id: typeof entry?.id === 'string' ? entry.id : null, reason },
  });
  const wanted = options.head;
  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber++;
    if (text.trim() === '') continue;
    let entry: AuditChainEntry;
    try {
      entry = JSON.parse(text) as AuditChainEntry;
    } catch {
      return failed(lineNumber, null, 'the line is not JSON');
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return failed(lineNumber, null, 'the line is not an entry');
    const expectedSeq = summary.head.seq + 1;
    if (entry.seq !== expectedSeq) {
      return failed(
        lineNumber,
        entry,
        `seq ${JSON.stringify(entry.seq)} where ${expectedSeq} was due: an entry is missing, inserted or out of order`,
      );
    }
    if (entry.prevHash !== summary.head.hash) {
      return failed(
        lineNumber,
        entry,
        `prevHash is not the hash of entry ${summary.head.seq}: an entry before it was removed, inserted or replaced`,
      );
    }
    if (typeof entry.hash !== 'string' || !HASH.test(entry.hash)) return failed(lineNumber, entry, 'hash is not 64 lowercase hex digits');
    let recomputed: string;
    try {
      recomputed = entryHash(entry);
    } catch (error) {
      return failed(lineNumber, entry, `the entry cannot be canonicalised: ${(error as Error).message}`);
    }
    if (recomputed !== entry.hash) return failed(lineNumber, entry, 'its content does not hash to its hash: the entry was edited');
    if (summary.tenantId === null) summary.tenantId = entry.tenantId;
    else if (entry.tenantId !== summary.tenantId)
      return failed(lineNumber, entry, `it belongs to tenant ${entry.tenantId}, not ${summary.tenantId}`);
    if (entry.intents !== undefined) {
      const check = await checkIntents(entry.intents);
      summary.intents.entries++;
      summary.intents.verifiedSignatures += check.verified;
      summary.intents.needChainLookup += check.needChainLookup;
      if (check.quorumNeedsChainLookup) summary.intents.quorumsNeedingChainLookup++;
      if (check.failure !== undefined) return failed(lineNumber, entry, `its intents fail: ${check.failure}`);
    }
    if (entry.action === 'audit.chain-start') summary.preChain = preChainOf(entry);
    if (wanted !== undefined && entry.seq === wanted.seq && entry.hash !== wanted.hash) {
      return failed(lineNumber, entry, `its hash is not the published head's (${wanted.hash}): the chain was rewritten up to here`);
    }
    summary.entries++;
    summary.head = { seq: entry.seq, hash: entry.hash };
  }
  if (wanted !== undefined && summary.head.seq < wanted.seq) {
    return {
      ...summary,
      ok: false,
      failure: {
        line: lineNumber,
        seq: summary.head.seq,
        id: null,
        reason: `the export ends at seq ${summary.head.seq}, before the published head (seq ${wanted.seq}): entries were cut off`,
      },
    };
  }
  return summary;
}

function preChainOf(entry: AuditChainEntry): ExportSummary['preChain'] {
  const after = (entry.change as { after?: Record<string, unknown> } | null)?.after;
  const count = after?.preChainEntries;
  if (typeof count !== 'number') return null;
  return {
    entries: count,
    firstSeq: Number(after?.firstPreChainSeq ?? 0),
    lastSeq: Number(after?.lastPreChainSeq ?? 0),
    chainedAt: entry.createdAt,
  };
}
