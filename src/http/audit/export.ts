import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AdministrationRouteDeps } from '../admins/support/deps.ts';
import { authenticationOf } from '../auth/wallet-auth.ts';
import { AUDIT_EXPORT_RESPONSE, AuditExportQuery, EXPORT_MEDIA_TYPE } from '../schemas/audit-chain.ts';
import { authenticatedErrorResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';

/** The tenant's audit chain as JSON Lines, streamed page by page (docs/audit-chain.md). */
export default async function auditExportRoute(base: FastifyInstance, deps: AdministrationRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/audit/export',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'exportTenantAudit',
        summary:
          "The tenant's audit chain as JSON Lines, oldest first, from a cursor (audit:read, an owner): check it offline with `wallet-admin audit verify`",
        tags: ['audit'],
        security: WALLET_SECURITY,
        querystring: AuditExportQuery,
        response: { 200: AUDIT_EXPORT_RESPONSE, ...authenticatedErrorResponses },
      },
    },
    async (request, reply) => {
      const lines = await deps.audit.exportLines(authenticationOf(request).principal.id, request.query.after ?? 0);
      // Each page's lines are one chunk; the stream's back-pressure paces the reads to the client.
      return reply
        .type(EXPORT_MEDIA_TYPE)
        .header('cache-control', 'no-store')
        .send(Readable.from(lines, { objectMode: false }));
    },
  );
}
