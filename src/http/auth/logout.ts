import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AdminService } from '../../administration/admin-service.ts';
import type { WalletAuthenticator } from '../../auth/wallet-authenticator.ts';
import { LogoutQuery, WalletHeadersSchema } from '../schemas/auth.ts';
import { authenticatedErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { authenticationOf } from './wallet-auth.ts';

/** POST /api/auth/logout. */
export default async function logoutRoute(
  base: FastifyInstance,
  options: { authenticator: WalletAuthenticator; admins: Pick<AdminService, 'signOutEverywhere'> },
): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/auth/logout',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'logout',
        summary: 'Revoke the presented signed message, or (all=true) every message the admin has signed, on every instance',
        tags: ['auth'],
        security: WALLET_SECURITY,
        headers: WalletHeadersSchema,
        querystring: LogoutQuery,
        response: { 204: { type: 'null', description: 'Revoked' }, ...authenticatedErrorResponses, ...problemResponses(413, 415) },
      },
    },
    async (request, reply) => {
      const authentication = authenticationOf(request);
      // Every message: a change of the admin's record, audited (admin.sign-out). One message: a revocation only.
      if (request.query.all === 'true') await options.admins.signOutEverywhere(authentication.principal.id);
      else await options.authenticator.logout(authentication);
      return reply.code(204).send(null);
    },
  );
}
