import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Held } from '../../../approvals/held.ts';
import type { ScopeRestoreOutcome, ScopeRestoreRequest } from '../../../files/scope-restore-service.ts';
import { sendProposal, shownProposal } from '../../proposals/support/views.ts';
import { jsonAnswer } from '../../schemas/answer.ts';
import { ProposalSchema } from '../../schemas/approvals.ts';
import { EXAMPLE_PROPOSAL } from '../../schemas/approvals-examples.ts';
import { EXAMPLE_SCOPE_RESTORE } from '../../schemas/examples.ts';
import { channelErrorResponses, problemResponses } from '../../schemas/problem.ts';
import { type ScopeRestoreQuery, ScopeRestoreResultSchema } from '../../schemas/scope-restore.ts';
import type { RefusalAudit } from './channel-lookup.ts';
import { matchPrecondition } from './condition-headers.ts';
import type { FilesRouteDeps } from './deps.ts';
import { requireEmptyRestoreBody } from './restore-body.ts';

/** What the restore of a folder (folders/restore.ts) and of a whole channel (restore.ts) share: they differ only in their scope. */

export const SCOPE_RESTORE_DESCRIPTION =
  'The backup is named by backupTimestamp, or instead the state at an instant by at (RFC 3339; 404 INSTANT_NOT_RETAINED ' +
  'when retention no longer holds it). Compares the backup with the live files of the scope: a file the backup holds is replaced (other bytes) or created ' +
  '(not live), a live file it does not hold is deleted with delete=true only. Unless dryRun=true or nothing differs, a ' +
  'backup of the channel is taken first (safetyBackup), then each file is restored as a single-file restore does ' +
  '(its current bytes kept as a version, an atomic sha256-checked copy) or deleted (kept as a deleted version). ' +
  'Nothing outside the scope changes; a file changed meanwhile by someone else is restored anyway (what they wrote ' +
  "stays as a version). After an interruption, the same request does what is left. Both answers carry the plan's strong ETag " +
  "(a hash of its changes, the live bytes each acts on, and the options): with If-Match set to a dry run's ETag the restore " +
  "goes ahead only if its plan is still that one, else 412 PRECONDITION_FAILED (currentEtag: the new plan's), nothing restored " +
  'and no safety backup taken. If-None-Match is refused (400).';

export const SCOPE_RESTORE_RESPONSES = {
  200: jsonAnswer(
    ScopeRestoreResultSchema,
    'Restored (or, for a dry run, the plan): what changed, and the safety backup',
    EXAMPLE_SCOPE_RESTORE,
  ),
  202: jsonAnswer(
    ProposalSchema,
    'Held by a policy (docs/approvals.md): nothing changed; the proposal runs this plan once enough admins sign its intent',
    EXAMPLE_PROPOSAL,
  ),
  ...channelErrorResponses,
  ...problemResponses(412, 413, 415, 507),
};

/** The options are the query's; the condition is If-Match (If-None-Match is refused: it cannot guard a restore). */
export function scopeRestoreOptions(request: {
  query: Static<typeof ScopeRestoreQuery>;
  headers: FastifyRequest['headers'];
}): Omit<ScopeRestoreRequest, 'folder'> {
  const { query, headers } = request;
  return {
    backupTimestamp: query.backupTimestamp,
    at: query.at,
    dryRun: query.dryRun === 'true',
    delete: query.delete === 'true',
    precondition: matchPrecondition(headers, 'a folder or channel restore', 'the ETag of the plan a dry run answered'),
  };
}

/**
 * A restore that ran: the plan's ETag goes in its header, the body is the plan and what was done.
 * One a policy holds: 202 and its proposal.
 */
export async function scopeRestoreAnswer(
  reply: FastifyReply,
  held: Held<ScopeRestoreOutcome>,
  deps: Pick<FilesRouteDeps, 'proposals'>,
  viewerId: string,
) {
  if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, viewerId));
  const { dryRun, safetyBackup, changes, unchanged, etag, quota } = held.ran;
  reply.header('ETag', etag);
  return { dryRun, safetyBackup, changes, unchanged, ...(quota === undefined ? {} : { quota }) };
}

/** The options are query parameters: a body carrying any (`{"delete":true}`) is refused, not ignored. */
export function requireEmptyScopeRestoreBody(body: unknown): void {
  requireEmptyRestoreBody(body, 'name the backup with backupTimestamp or at, and the options dryRun and delete,');
}

/** A refused folder or channel restore is audited as a restore, with the backup or instant it asked for. */
export function scopeRestoreRefusals(request: FastifyRequest): RefusalAudit {
  const { backupTimestamp, at } = request.query as Static<typeof ScopeRestoreQuery>;
  return { action: 'restore', asked: { backupTimestamp, at } };
}
