import type { Proposal } from '../model/approvals.ts';
import type { AuditEvent, AuditLog } from '../model/audit.ts';

/**
 * What a held operation acts on, as its audit entries name it: an entry of one of `actions` that
 * matches every other member given. A run taken over after a crash completes only if no such entry
 * since it began is another's (proposal-runs.ts).
 */
export interface ActsOn {
  actions: readonly string[];
  channelId?: string | null;
  folder?: string | null;
  backupTimestamp?: string;
  targetAdminId?: string;
}

/** Entries of the tenant's chain read per query when a takeover looks at what changed since a run began. */
const CHAIN_PAGE = 500;

/**
 * What the tenant's chain says of a run since it began (seq > fromSeq), for its takeover: its own
 * steps (their entries carry its proposal id), and the first entry of anyone else's that touches
 * what it acts on, if any. Only changes count (result ok); a refusal changed nothing.
 */
export async function sinceRunBegan(
  log: Pick<AuditLog, 'chainedAudit'>,
  proposal: Proposal,
  fromSeq: number,
  actsOn: ActsOn | undefined,
): Promise<{ own: AuditEvent[]; foreign: AuditEvent | undefined }> {
  const own: AuditEvent[] = [];
  let after = fromSeq;
  for (;;) {
    const page = await log.chainedAudit(proposal.tenantId, after, CHAIN_PAGE);
    for (const { event } of page) {
      if (event.result !== 'ok') continue;
      if (event.proposalId === proposal.id) own.push(event);
      else if (actsOn !== undefined && touches(event, actsOn)) return { own, foreign: event };
    }
    if (page.length < CHAIN_PAGE) return { own, foreign: undefined };
    after = page[page.length - 1]!.seq;
  }
}

/** Whether `event` acts on what `actsOn` names. */
function touches(event: AuditEvent, actsOn: ActsOn): boolean {
  if (!actsOn.actions.includes(event.action)) return false;
  if (actsOn.channelId !== undefined && event.channelId !== actsOn.channelId) return false;
  if (actsOn.folder != null && event.folder !== actsOn.folder) return false;
  if (actsOn.backupTimestamp !== undefined && event.backupTimestamp !== actsOn.backupTimestamp) return false;
  if (actsOn.targetAdminId !== undefined && event.targetAdminId !== actsOn.targetAdminId) return false;
  return true;
}
