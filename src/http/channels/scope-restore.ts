import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { ScopeRestoreOutcome, ScopeRestoreRequest } from '../../files/scope-restore-service.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { EXAMPLE_SCOPE_RESTORE } from '../schemas/examples.ts';
import { ChannelParams, FolderParams } from '../schemas/files.ts';
import { channelErrorResponses, problemResponses } from '../schemas/problem.ts';
import { PlanIfMatchHeaders, ScopeRestoreQuery, ScopeRestoreResultSchema } from '../schemas/scope-restore.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { matchPrecondition } from './condition-headers.ts';
import type { FilesRouteDeps } from './deps.ts';
import { requireEmptyRestoreBody } from './restore-body.ts';
import { actorOf, channelOf, folderOf } from './scope.ts';

const DESCRIPTION =
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

const route = {
  config: { permission: 'files:restore', auditRefusalsAs: 'restore', checkBody: requireEmptyBody },
} as const;

const response = {
  200: jsonAnswer(
    ScopeRestoreResultSchema,
    'Restored (or, for a dry run, the plan): what changed, and the safety backup',
    EXAMPLE_SCOPE_RESTORE,
  ),
  ...channelErrorResponses,
  ...problemResponses(412, 413, 415, 507),
};

/** Restores of a folder or of a whole channel from a backup; registered in the channel scope. */
export default async function scopeRestoreRoutes(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/channels/:channelRef/folders/:folderName/restore',
    {
      ...route,
      schema: {
        operationId: 'restoreFolder',
        summary: 'Restore a folder from a backup or to an instant (dryRun=true: the plan only)',
        description: DESCRIPTION,
        tags: ['files'],
        security: WALLET_SECURITY,
        params: FolderParams,
        headers: PlanIfMatchHeaders,
        querystring: ScopeRestoreQuery,
        response,
      },
    },
    async (request, reply) =>
      answer(
        reply,
        await deps.scopeRestores.restore(channelOf(request), actorOf(request), { folder: folderOf(request), ...optionsOf(request) }),
      ),
  );

  app.post(
    '/api/channels/:channelRef/restore',
    {
      ...route,
      schema: {
        operationId: 'restoreChannel',
        summary: 'Restore every folder of the channel from a backup or to an instant (dryRun=true: the plan only)',
        description: DESCRIPTION,
        tags: ['files'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        headers: PlanIfMatchHeaders,
        querystring: ScopeRestoreQuery,
        response,
      },
    },
    async (request, reply) => answer(reply, await deps.scopeRestores.restore(channelOf(request), actorOf(request), optionsOf(request))),
  );
}

/** The options are the query's; the condition is If-Match (If-None-Match is refused: it cannot guard a restore). */
function optionsOf(request: {
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

/** The plan's ETag goes in its header; the body is the plan and what was done. */
function answer(reply: FastifyReply, outcome: ScopeRestoreOutcome) {
  const { dryRun, safetyBackup, changes, unchanged, etag } = outcome;
  reply.header('ETag', etag);
  return { dryRun, safetyBackup, changes, unchanged };
}

/** The options are query parameters: a body carrying any (`{"delete":true}`) is refused, not ignored. */
function requireEmptyBody(body: unknown): void {
  requireEmptyRestoreBody(body, 'name the backup with backupTimestamp or at, and the options dryRun and delete,');
}
