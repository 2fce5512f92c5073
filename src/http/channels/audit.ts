import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { jsonAnswer, PAGE } from '../schemas/answer.ts';
import { EXAMPLE_AUDIT_PAGE } from '../schemas/examples.ts';
import { AuditEventSchema, AuditQuery, ChannelParams, pageOf } from '../schemas/files.ts';
import { channelErrorResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { channelOf } from './support/channel-scope.ts';
import type { FilesRouteDeps } from './support/deps.ts';
import { pageRequestOf } from './support/page-request.ts';
import { auditView } from './support/views.ts';

const errors = channelErrorResponses;

/** The audit log of a channel; registered in the channel scope. */
export default async function auditRoute(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/audit',
    {
      preHandler: app.enterChannel({ permission: 'audit:read' }),
      schema: {
        operationId: 'listAuditEvents',
        summary: 'Audit log of the channel, newest first, optionally filtered',
        description:
          'Filters (action, adminId, folder, filename, result, operationId) combine with AND; pass the same filters with `cursor` for the next page. ' +
          'A folder or channel restore is one operation: its own event (filename null, with operation), its safety backup and each file it ' +
          'restored or deleted carry its operationId.',
        tags: ['audit'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        querystring: AuditQuery,
        response: { 200: jsonAnswer(pageOf(AuditEventSchema), PAGE, EXAMPLE_AUDIT_PAGE), ...errors },
      },
    },
    async (request) => {
      const { action, adminId, folder, filename, result, operationId } = request.query;
      const filter = { action, adminId, folder, filename, result, operationId };
      const channel = channelOf(request);
      const page = await deps.auditLog.list(channel, pageRequestOf(request.query), filter);
      const admins = page.items.map((e) => e.adminId);
      const names = await deps.adminNames.of(channel, admins);
      return { items: page.items.map((e) => auditView(e, names)), next: page.next };
    },
  );
}
