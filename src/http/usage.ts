import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AdministrationRouteDeps } from './admins/support/deps.ts';
import { authenticationOf } from './auth/wallet-auth.ts';
import { jsonAnswer } from './schemas/answer.ts';
import { authenticatedErrorResponses } from './schemas/problem.ts';
import { EXAMPLE_TENANT_USAGE, TenantUsageSchema } from './schemas/quotas.ts';
import { WALLET_SECURITY } from './schemas/security.ts';

/** The tenant's usage against its quota, and each channel's (docs/quotas.md). */
export default async function usageRoutes(base: FastifyInstance, deps: Pick<AdministrationRouteDeps, 'quotas'>): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/usage',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'getTenantUsage',
        summary: "The tenant's usage against its quota, and that of each channel the caller reaches",
        tags: ['quotas'],
        security: WALLET_SECURITY,
        response: {
          200: jsonAnswer(TenantUsageSchema, 'Usage, quota and room left: the tenant, then its channels', EXAMPLE_TENANT_USAGE),
          ...authenticatedErrorResponses,
        },
      },
    },
    async (request) => {
      const usage = await deps.quotas.tenantUsage(authenticationOf(request).principal.id);
      return usage;
    },
  );
}
