import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { authenticationOf } from '../auth/wallet-auth.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { TargetCheckSchema } from '../schemas/offsite.ts';
import { authenticatedErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import type { OffsiteRouteDeps } from './support/deps.ts';

/** POST /api/offsite/test: reaches the tenant's target now, ships what is pending, and answers what came of it. */
export default async function offsiteTestRoute(base: FastifyInstance, deps: OffsiteRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/offsite/test',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'testTenantOffsite',
        summary: "Test the tenant's own off-site target now: reach it with its key, list the copy, ship what is pending",
        tags: ['offsite'],
        security: WALLET_SECURITY,
        response: {
          200: jsonAnswer(TargetCheckSchema, "Tested (ok: false says what failed); the result is the target's last check", {
            ok: true,
            result: 'ok: reached s3://acme-copy/wallet-admin in 84 ms; 13 segments there',
            checkedAt: '2026-12-06T11:40:00.000Z',
          }),
          ...authenticatedErrorResponses,
          ...problemResponses(404),
        },
      },
    },
    async (request) => deps.offsite.test(authenticationOf(request).principal.id),
  );
}
