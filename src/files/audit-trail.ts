import { isAppError } from '../errors/app-error.ts';
import type { Logger } from '../logging/logger.ts';
import { actorMembers, type Who } from '../model/actors.ts';
import type { ProposalIntents } from '../model/approvals.ts';
import type { AuditAction, AuditChange, AuditEvent, AuditLog, AuditOperation, AuditResult, NewAuditEvent } from '../model/audit.ts';
import type { Channel } from '../model/channels.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import { storedForm } from '../names/name-form.ts';
import { auditFilterOf, type RequestedAuditFilter } from './audit-filter.ts';

/** Who acts (model/actors.ts): an admin, the operator's local CLI, or the service itself (scheduled backups, retention). */
export interface Actor extends Who {
  /**
   * The operation (op_…) this write is one step of: a folder or channel restore acts on each file
   * as this actor, so that every event it causes names it without each service being told.
   */
  operationId?: string;
  /** The signed intents that let this held operation run (docs/approvals.md): its own audit entry keeps them. */
  intents?: ProposalIntents;
}

export interface AuditDetails {
  folder?: string | null;
  filename?: string | null;
  backupTimestamp?: string | null;
  versionId?: string | null;
  /** A restore to an instant: the instant asked for. */
  at?: string | null;
  sha256?: string | null;
  /** A folder or channel restore's own event: what it was asked and did. */
  operation?: AuditOperation | null;
  /** A change of a record kept beside the channel (a backup's lock): before and after. */
  change?: AuditChange | null;
  /** Bytes moved, for metrics only (not part of the log). */
  bytes?: number;
}

/**
 * The 'ok' entry of a write, built by the write with what it learnt (its sha256, the version it
 * kept), for the transaction that commits the write to append: a change and its entry commit
 * together or not at all (docs/audit-chain.md).
 */
export type EntryOf = (details: AuditDetails) => NewAuditEvent;

/** What a write's work answers: its value, what the entry adds, and whether its commit appended the entry. */
export interface WorkDone<T> {
  value: T;
  details?: AuditDetails;
  /** The entry went with the write's commit (entryOf's); otherwise nothing changed and the trail appends it now. */
  recorded?: boolean;
}

/** The entry of `action` by `actor` on `channel` with `result`, made at `createdAt`. */
export function fileEntry(
  channel: Pick<Channel, 'id' | 'tenantId'>,
  actor: Actor,
  action: AuditAction,
  result: AuditResult,
  details: AuditDetails,
  error: unknown,
  createdAt: number,
): NewAuditEvent {
  return {
    tenantId: channel.tenantId,
    channelId: channel.id,
    ...actorMembers(actor, createdAt),
    action,
    folder: printable(details.folder),
    filename: printable(details.filename),
    backupTimestamp: printable(details.backupTimestamp),
    versionId: printable(details.versionId),
    at: printable(details.at),
    result,
    code: error === undefined ? null : isAppError(error) ? error.code : 'INTERNAL_ERROR',
    sha256: details.sha256 ?? null,
    createdAt,
    operationId: actor.operationId ?? null,
    operation: details.operation ?? null,
    ...(details.change ? { change: details.change } : {}),
    ...(actor.intents ? { intents: actor.intents } : {}),
  };
}

/** What a request named, as it named it: recorded even when the names are refused. */
export interface RequestedNames {
  folder?: string | undefined;
  filename?: string | undefined;
  backupTimestamp?: string | undefined;
  versionId?: string | undefined;
  at?: string | undefined;
}

/** Told the outcome of every audited operation (metrics). */
export type OutcomeObserver = (action: AuditAction, result: AuditResult, seconds: number, bytes: number | undefined) => void;

/**
 * The audit trail of a channel's files. A write's 'ok' entry is appended by the transaction that
 * commits the write (`around` hands the work the entry to pass down); a refusal (4xx), a failure
 * (5xx), and a success that changed nothing are appended after the fact, and a failure to append
 * those is logged, not thrown: the answer they describe stands either way.
 */
export class AuditTrail {
  constructor(
    private readonly catalog: AuditLog,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly observe: OutcomeObserver = () => {},
  ) {}

  /** The entry of `action` by `actor` on `channel` with `result`, as appended. */
  entry(channel: Channel, actor: Actor, action: AuditAction, result: AuditResult, details: AuditDetails, error?: unknown): NewAuditEvent {
    return fileEntry(channel, actor, action, result, details, error, this.now());
  }

  /** Appends an entry after the fact (a refusal, a failure, a success that changed nothing): logged, not thrown, when it fails. */
  async record(
    channel: Channel,
    actor: Actor,
    action: AuditAction,
    result: AuditResult,
    details: AuditDetails,
    error?: unknown,
  ): Promise<void> {
    // A refusal is no step of a run: it renews no lease, and must be recorded even after a takeover.
    const event = this.entry(channel, { ...actor, run: undefined }, action, result, details, error);
    const { lease: _lease, ...logged } = event;
    try {
      await this.catalog.appendAudit({ ...event, proposalId: actor.run?.proposalId ?? null, lease: undefined });
    } catch (err) {
      this.logger.error({ err, event: logged }, 'could not write the audit log');
    }
  }

  /**
   * Runs a write and records its outcome, refused (4xx) or failed (5xx) included. The work is handed
   * `entryOf`, the 'ok' entry with `details` and what it adds, to append in the transaction that
   * commits its change (and says so: `recorded`). `details` may be a function, read when the outcome
   * is recorded: an operation of many steps records how far it got.
   */
  async around<T>(
    channel: Channel,
    actor: Actor,
    action: AuditAction,
    details: AuditDetails | (() => AuditDetails),
    work: (entryOf: EntryOf) => Promise<WorkDone<T>>,
  ): Promise<T> {
    const started = performance.now();
    const asOfNow = () => (typeof details === 'function' ? details() : details);
    try {
      const done = await work((found) => this.entry(channel, actor, action, 'ok', { ...asOfNow(), ...found }));
      if (done.recorded !== true) await this.appendOk(channel, actor, action, { ...asOfNow(), ...done.details });
      this.observe(action, 'ok', (performance.now() - started) / 1000, done.details?.bytes);
      return done.value;
    } catch (error) {
      await this.stopped(channel, actor, action, asOfNow(), error, started);
      throw error;
    }
  }

  /**
   * A success whose entry no commit carried: nothing changed (a restore onto the same bytes), or an
   * operation of many steps, each committed with its own entry, records its summary. A step of a
   * run renews the lease here too, and is refused once the run was taken over.
   */
  private async appendOk(channel: Channel, actor: Actor, action: AuditAction, details: AuditDetails): Promise<void> {
    const event = this.entry(channel, actor, action, 'ok', details);
    try {
      await this.catalog.appendAudit(event);
    } catch (err) {
      // The run is another instance's now: this one stops here, and says so.
      if (isAppError(err) && err.code === 'PROPOSAL_RUN_TAKEN_OVER') throw err;
      const { lease: _lease, ...logged } = event;
      this.logger.error({ err, event: logged }, 'could not write the audit log');
    }
  }

  /** Records an operation stopped before it began (its channel or permission refused), as `around` records one stopped inside. */
  async stopped(
    channel: Channel,
    actor: Actor,
    action: AuditAction,
    details: AuditDetails,
    error: unknown,
    started = performance.now(),
  ): Promise<void> {
    const result = isAppError(error) && error.status < 500 ? 'refused' : 'failed';
    await this.record(channel, actor, action, result, details, error);
    this.observe(action, result, (performance.now() - started) / 1000, undefined);
  }

  /**
   * The channel's audit log, newest first: the events matching every field given in `filter`
   * (checked here: a bad value → VALIDATION_FAILED). Pass the same filter with a page's cursor.
   */
  async list(channel: Channel, page: PageRequest, filter: RequestedAuditFilter = {}): Promise<Page<AuditEvent>> {
    return this.catalog.listAudit(channel.id, page, auditFilterOf(filter));
  }
}

/** What was asked, as asked (bounded: the names may be refused for their length). */
export function requestedDetails(names: RequestedNames): AuditDetails {
  return {
    folder: names.folder?.slice(0, 255) ?? null,
    filename: names.filename?.slice(0, 255) ?? null,
    backupTimestamp: names.backupTimestamp?.slice(0, 40) ?? null,
    versionId: names.versionId?.slice(0, 60) ?? null,
    at: names.at?.slice(0, 40) ?? null,
  };
}

/**
 * A refused request's names are recorded as the caller sent them, but in NFC, the form names are
 * stored in (so that the log's filters find them as they find the files), and with control
 * characters (NUL above all, which PostgreSQL text refuses) as U+FFFD so that the record can always
 * be written.
 */
function printable(value: string | null | undefined): string | null {
  return value == null ? null : storedForm(value).replace(/\p{Cc}/gu, '\uFFFD');
}
