import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ChannelParams } from '../schemas/files.ts';
import { PlanIfMatchHeaders, ScopeRestoreQuery } from '../schemas/scope-restore.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { actorOf, channelOf } from './support/channel-scope.ts';
import type { FilesRouteDeps } from './support/deps.ts';
import {
  requireEmptyScopeRestoreBody,
  SCOPE_RESTORE_DESCRIPTION,
  SCOPE_RESTORE_RESPONSES,
  scopeRestoreAnswer,
  scopeRestoreOptions,
  scopeRestoreRefusals,
} from './support/scope-restore.ts';

/** The restore of every folder of a channel from a backup; registered in the channel scope. */
export default async function channelRestoreRoute(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/channels/:channelRef/restore',
    {
      preHandler: app.enterChannel({
        permission: 'files:restore',
        checkBody: requireEmptyScopeRestoreBody,
        auditRefusals: scopeRestoreRefusals,
      }),
      schema: {
        operationId: 'restoreChannel',
        summary: 'Restore every folder of the channel from a backup or to an instant (dryRun=true: the plan only)',
        description: SCOPE_RESTORE_DESCRIPTION,
        tags: ['files'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        headers: PlanIfMatchHeaders,
        querystring: ScopeRestoreQuery,
        response: SCOPE_RESTORE_RESPONSES,
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      return scopeRestoreAnswer(
        reply,
        await deps.heldRestores.restore(channelOf(request), actor, scopeRestoreOptions(request)),
        deps,
        actor.adminId,
      );
    },
  );
}
