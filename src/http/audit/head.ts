import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { formatRfc3339 } from '../../time/rfc3339.ts';
import type { AdministrationRouteDeps } from '../admins/support/deps.ts';
import { authenticationOf } from '../auth/wallet-auth.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { AuditHeadSchema, EXAMPLE_AUDIT_HEAD } from '../schemas/audit-chain.ts';
import { authenticatedErrorResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';

/** The head of the tenant's audit chain: what to publish elsewhere so that a rewrite or a truncation shows (docs/audit-chain.md). */
export default async function auditHeadRoute(base: FastifyInstance, deps: AdministrationRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/audit/head',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'getAuditHead',
        summary: "The head of the tenant's audit chain: its last entry's seq and hash (audit:read, an owner)",
        tags: ['audit'],
        security: WALLET_SECURITY,
        response: {
          200: jsonAnswer(
            AuditHeadSchema,
            'The last entry of the chain: publish it to detect a rewrite or a truncation later',
            EXAMPLE_AUDIT_HEAD,
          ),
          ...authenticatedErrorResponses,
        },
      },
    },
    async (request) => {
      const head = await deps.audit.head(authenticationOf(request).principal.id);
      return { tenantId: head.tenantId, seq: head.seq, hash: head.hash, at: head.at === null ? null : formatRfc3339(head.at) };
    },
  );
}
