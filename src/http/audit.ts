import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AdministrationRouteDeps } from './admins/support/deps.ts';
import { tenantAuditView } from './admins/support/views.ts';
import { authenticationOf } from './auth/wallet-auth.ts';
import { pageRequestOf } from './channels/support/page-request.ts';
import { TenantAuditEventSchema, TenantAuditQuery } from './schemas/administration.ts';
import { EXAMPLE_TENANT_AUDIT_PAGE } from './schemas/administration-examples.ts';
import { jsonAnswer, PAGE } from './schemas/answer.ts';
import { pageOf } from './schemas/files.ts';
import { authenticatedErrorResponses } from './schemas/problem.ts';
import { WALLET_SECURITY } from './schemas/security.ts';

/** The tenant's whole audit log: its channels' events and its administration events (audit:read). */
export default async function tenantAuditRoute(base: FastifyInstance, deps: AdministrationRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/audit',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'listTenantAudit',
        summary:
          "The tenant's audit log, newest first (audit:read): an owner sees every event, a sub-admin those of its channels and of the admins below it",
        tags: ['audit'],
        security: WALLET_SECURITY,
        querystring: TenantAuditQuery,
        response: { 200: jsonAnswer(pageOf(TenantAuditEventSchema), PAGE, EXAMPLE_TENANT_AUDIT_PAGE), ...authenticatedErrorResponses },
      },
    },
    async (request) => {
      const { principal } = authenticationOf(request);
      const { limit: _limit, cursor: _cursor, ...filter } = request.query;
      const page = await deps.audit.list(principal.id, filter, pageRequestOf(request.query));
      const names = await deps.adminNames.inTenant(
        principal.tenantId,
        page.items.map((e) => e.adminId),
      );
      return { items: page.items.map((e) => tenantAuditView(e, names)), next: page.next };
    },
  );
}
