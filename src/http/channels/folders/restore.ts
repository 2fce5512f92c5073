import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { FolderParams } from '../../schemas/files.ts';
import { PlanIfMatchHeaders, ScopeRestoreQuery } from '../../schemas/scope-restore.ts';
import { WALLET_SECURITY } from '../../schemas/security.ts';
import { actorOf, channelOf, folderOf } from '../support/channel-scope.ts';
import type { FilesRouteDeps } from '../support/deps.ts';
import {
  requireEmptyScopeRestoreBody,
  SCOPE_RESTORE_DESCRIPTION,
  SCOPE_RESTORE_RESPONSES,
  scopeRestoreAnswer,
  scopeRestoreOptions,
  scopeRestoreRefusals,
} from '../support/scope-restore.ts';

/** The restore of a folder from a backup; registered in the channel scope. */
export default async function folderRestoreRoute(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/channels/:channelRef/folders/:folderName/restore',
    {
      preHandler: app.enterChannel({
        permission: 'files:restore',
        checkBody: requireEmptyScopeRestoreBody,
        auditRefusals: scopeRestoreRefusals,
      }),
      schema: {
        operationId: 'restoreFolder',
        summary: 'Restore a folder from a backup or to an instant (dryRun=true: the plan only)',
        description: SCOPE_RESTORE_DESCRIPTION,
        tags: ['files'],
        security: WALLET_SECURITY,
        params: FolderParams,
        headers: PlanIfMatchHeaders,
        querystring: ScopeRestoreQuery,
        response: SCOPE_RESTORE_RESPONSES,
      },
    },
    async (request, reply) => {
      const options = { folder: folderOf(request), ...scopeRestoreOptions(request) };
      const actor = actorOf(request);
      return scopeRestoreAnswer(reply, await deps.heldRestores.restore(channelOf(request), actor, options), deps, actor.adminId);
    },
  );
}
