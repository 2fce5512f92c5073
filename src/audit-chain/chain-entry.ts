import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { AuditEvent, ChainedAuditEvent } from '../model/audit.ts';
import { canonicalJson } from './canonical-json.ts';

/**
 * One entry of a tenant's audit chain, as the export writes it and the verifier reads it
 * (docs/audit-chain.md, "The hash"). Pure: the service, the CLI's verifier and the browser console
 * share it, and none of them needs the others' dependencies.
 */

/** The prevHash of a chain's first entry: 32 zero bytes. */
export const ZERO_HASH = '0'.repeat(64);

/** An event's members an entry covers, plus its place in the chain; `hash` covers everything else. */
export interface AuditChainEntry {
  seq: number;
  prevHash: string;
  hash: string;
  id: string;
  tenantId: string;
  channelId: string | null;
  adminId: string | null;
  action: string;
  folder: string | null;
  filename: string | null;
  backupTimestamp: string | null;
  versionId: string | null;
  at: string | null;
  result: string;
  code: string | null;
  sha256: string | null;
  createdAt: number;
  operationId: string | null;
  operation: unknown;
  targetAdminId: string | null;
  change: unknown;
  /** Present only on an event that carries intents, so that the entries of every other event hash as before intents existed. */
  intents?: unknown;
  /** Present only on an event of the operator's CLI: the operator's label. */
  operator?: string;
  /** Present only on an event a held operation's run made: its proposal. */
  proposalId?: string;
}

export type UnhashedEntry = Omit<AuditChainEntry, 'hash'>;

/**
 * The entry of `event` at `seq` after `prevHash`, hash not yet computed. The members are named one
 * by one, not spread from the event: a member the model gains later must not slip into the hash
 * of entries already written (their hashes would no longer recompute). A new member joins the
 * entry the way `intents` did, present only when it has a value.
 */
export function unhashedEntry(event: AuditEvent, seq: number, prevHash: string): UnhashedEntry {
  return {
    seq,
    prevHash,
    id: event.id,
    tenantId: event.tenantId,
    channelId: event.channelId,
    adminId: event.adminId,
    action: event.action,
    folder: event.folder,
    filename: event.filename,
    backupTimestamp: event.backupTimestamp,
    versionId: event.versionId,
    at: event.at,
    result: event.result,
    code: event.code,
    sha256: event.sha256,
    createdAt: event.createdAt,
    operationId: event.operationId,
    operation: event.operation,
    targetAdminId: event.targetAdminId,
    change: event.change,
    ...(event.intents == null ? {} : { intents: event.intents }),
    ...(event.operator == null ? {} : { operator: event.operator }),
    ...(event.proposalId == null ? {} : { proposalId: event.proposalId }),
  };
}

/**
 * hash = lowercase hex of SHA-256 over the UTF-8 bytes of the RFC 8785 canonical JSON of the entry
 * without its `hash` member. The entry holds `prevHash` and `seq`, so each hash covers the whole
 * chain before it and the entry's place in it.
 */
export function entryHash(entry: UnhashedEntry | AuditChainEntry): string {
  const { hash: _hash, ...covered } = entry as AuditChainEntry;
  return bytesToHex(sha256(utf8ToBytes(canonicalJson(covered))));
}

/** The entry of `event` at `seq` after `prevHash`, with its hash. */
export function chainEntry(event: AuditEvent, seq: number, prevHash: string): AuditChainEntry {
  const entry = unhashedEntry(event, seq, prevHash);
  return { ...entry, hash: entryHash(entry) };
}

/** One line of an export: the entry's canonical JSON (so the line is itself what a reader may hash, less `hash`). */
export function exportLine(entry: AuditChainEntry): string {
  return `${canonicalJson(entry)}\n`;
}

/** A stored event with its stored chain columns, as an export shows it: the hashes as stored, never recomputed (recomputing is the verifier's job). */
export function storedEntry(chained: ChainedAuditEvent): AuditChainEntry {
  return { ...unhashedEntry(chained.event, chained.seq, chained.prevHash), hash: chained.hash };
}
