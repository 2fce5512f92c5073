import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors/app-error.ts';
import { authenticationOf } from '../auth/wallet-auth.ts';
import { sendProposal, shownProposal } from '../proposals/support/views.ts';
import { AdminParams, WalletParams, WalletProofBody, WalletSchema } from '../schemas/administration.ts';
import { EXAMPLE_WALLET_PAGE, EXAMPLE_WALLET_RECORD } from '../schemas/administration-examples.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { heldAnswer } from '../schemas/approvals-examples.ts';
import { authenticatedErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import type { AdministrationRouteDeps } from './support/deps.ts';
import { walletView } from './support/views.ts';

const errors = { ...authenticatedErrorResponses, ...problemResponses(404) };

/**
 * A proof in the form of releases before typed data: `{message, signature}`, an EIP-4361 text
 * signed with personal_sign. That form was a valid sign-in too, so it is refused outright, saying
 * what to sign instead (before the unknown member would be refused in general terms).
 */
function refuseSignInProof(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const body = request.body;
  if (typeof body !== 'object' || body === null || !('message' in body)) {
    done();
    return;
  }
  done(
    new AppError(
      'WALLET_PROOF_INVALID',
      'A signed message (EIP-4361, personal_sign) is no longer a wallet proof: it would sign in as the admin too. ' +
        'Ask POST …/wallets/challenge for its typedData, have the new wallet sign that with eth_signTypedData_v4, and send {typedData, signature}',
    ),
  );
}

/** An admin's wallets: several per admin, each signing in as it; a new one only with its own signature of typed data. */
export default async function walletRoutes(base: FastifyInstance, deps: AdministrationRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/admins/:adminId/wallets',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'listAdminWallets',
        summary: "An admin's wallets, oldest first: one's own, or with admins:read those of an admin one may read",
        tags: ['admins'],
        security: WALLET_SECURITY,
        params: AdminParams,
        response: { 200: jsonAnswer(Type.Object({ items: Type.Array(WalletSchema) }), 'The wallets', EXAMPLE_WALLET_PAGE), ...errors },
      },
    },
    async (request) => {
      const wallets = await deps.admins.wallets(authenticationOf(request).principal.id, request.params.adminId);
      return { items: wallets.map(walletView) };
    },
  );

  app.post(
    '/api/admins/:adminId/wallets',
    {
      config: { auditRefusalsAs: 'wallet.add' },
      preValidation: [app.requireWallet, refuseSignInProof],
      schema: {
        operationId: 'addAdminWallet',
        summary: "Add a wallet to an admin (oneself, or an owner for anyone): the challenge's typed data, signed by the new wallet",
        description:
          'The proof is never a sign-in. A signed EIP-4361 message (`{message, signature}`, the form of earlier releases) is refused with 400 WALLET_PROOF_INVALID.',
        tags: ['admins'],
        security: WALLET_SECURITY,
        params: AdminParams,
        body: WalletProofBody,
        response: {
          201: jsonAnswer(WalletSchema, 'Added: the wallet signs in as the admin', EXAMPLE_WALLET_RECORD),
          202: heldAnswer('wallet.add'),
          ...errors,
          ...problemResponses(409),
        },
      },
    },
    async (request, reply) => {
      const actorId = authenticationOf(request).principal.id;
      const held = await deps.held.addWallet(actorId, request.params.adminId, request.body);
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, actorId));
      return reply.code(201).send(walletView(held.ran));
    },
  );

  app.delete(
    '/api/admins/:adminId/wallets/:address',
    {
      config: { auditRefusalsAs: 'wallet.remove' },
      preHandler: app.requireWallet,
      schema: {
        operationId: 'removeAdminWallet',
        summary: "Remove a wallet of an admin (one's own, or admins:manage over the admin), never its last",
        description: "The wallet's signed-in sessions end on every instance within AUTH_STATE_REFRESH.",
        tags: ['admins'],
        security: WALLET_SECURITY,
        params: WalletParams,
        response: { 204: { type: 'null', description: 'Removed' }, ...errors, ...problemResponses(409) },
      },
    },
    async (request, reply) => {
      await deps.admins.removeWallet(authenticationOf(request).principal.id, request.params.adminId, request.params.address);
      return reply.code(204).send(null);
    },
  );
}
