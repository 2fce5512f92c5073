import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type AdministrationRouteDeps, tenantFeatures } from './admins/support/deps.ts';
import { adminEtag, adminView, revisionOf } from './admins/support/views.ts';
import { authenticationOf } from './auth/wallet-auth.ts';
import { pageRequestOf } from './channels/support/page-request.ts';
import { sendProposal, shownProposal } from './proposals/support/views.ts';
import { ADMIN_ETAG, AdminChangeBody, AdminListQuery, AdminParams, AdminSchema, NewAdminBody } from './schemas/administration.ts';
import { EXAMPLE_ADMIN, EXAMPLE_ADMIN_PAGE } from './schemas/administration-examples.ts';
import { jsonAnswer, PAGE } from './schemas/answer.ts';
import { heldAnswer } from './schemas/approvals-examples.ts';
import { pageOf } from './schemas/files.ts';
import { authenticatedErrorResponses, problemResponses } from './schemas/problem.ts';
import { WALLET_SECURITY } from './schemas/security.ts';

const errors = { ...authenticatedErrorResponses, ...problemResponses(404) };
const adminAnswer = (description: string) => ({ ...jsonAnswer(AdminSchema, description, EXAMPLE_ADMIN), headers: { ETag: ADMIN_ETAG } });

/** A tenant's admins, administered by its own admins (docs/administration.md). */
export default async function adminRoutes(base: FastifyInstance, deps: AdministrationRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/admins',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'listAdmins',
        summary: "The tenant's admins the caller may read (admins:read): an owner all, a sub-admin itself and those below it",
        tags: ['admins'],
        security: WALLET_SECURITY,
        querystring: AdminListQuery,
        response: { 200: jsonAnswer(pageOf(AdminSchema), PAGE, EXAMPLE_ADMIN_PAGE), ...errors },
      },
    },
    async (request) => {
      const { principal } = authenticationOf(request);
      const { status, permission, channel } = request.query;
      const page = await deps.admins.list(principal.id, { status, permission, channel }, pageRequestOf(request.query));
      const features = await tenantFeatures(deps, principal.tenantId);
      return { items: page.items.map((a) => adminView(a, features)), next: page.next };
    },
  );

  app.post(
    '/api/admins',
    {
      config: { auditRefusalsAs: 'admin.create' },
      preValidation: app.requireWallet,
      schema: {
        operationId: 'createAdmin',
        summary: 'Add an admin (admins:manage): a sub-admin of the caller, or with owner: true another owner (owners only)',
        tags: ['admins'],
        security: WALLET_SECURITY,
        body: NewAdminBody,
        response: { 201: adminAnswer('Added: the admin'), 202: heldAnswer('admin.create'), ...errors, ...problemResponses(409) },
      },
    },
    async (request, reply) => {
      const { principal } = authenticationOf(request);
      const body = request.body;
      const held = await deps.held.createAdmin(principal.id, { ...body, channels: body.channels ?? [] });
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, principal.id));
      const admin = held.ran;
      const features = await tenantFeatures(deps, principal.tenantId);
      return reply.code(201).header('ETag', adminEtag(admin)).send(adminView(admin, features));
    },
  );

  app.get(
    '/api/admins/:adminId',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'getAdmin',
        summary: 'One admin: oneself, or with admins:read one the caller may read',
        tags: ['admins'],
        security: WALLET_SECURITY,
        params: AdminParams,
        response: { 200: adminAnswer('The admin'), ...errors },
      },
    },
    async (request, reply) => {
      const { principal } = authenticationOf(request);
      const admin = await deps.admins.get(principal.id, request.params.adminId);
      const features = await tenantFeatures(deps, principal.tenantId);
      return reply.header('ETag', adminEtag(admin)).send(adminView(admin, features));
    },
  );

  app.patch(
    '/api/admins/:adminId',
    {
      config: { auditRefusalsAs: 'admin.update' },
      preValidation: app.requireWallet,
      schema: {
        operationId: 'updateAdmin',
        summary: 'Rename, change the permissions of, suspend or reactivate an admin (admins:manage, over an admin below the caller)',
        description:
          "permissions replaces the granted set; nobody grants what they do not hold. Suspending ends the admin's signed-in sessions on every " +
          'instance within AUTH_STATE_REFRESH. With If-Match (the ETag read), nothing changes when the record changed since (412).',
        tags: ['admins'],
        security: WALLET_SECURITY,
        params: AdminParams,
        body: AdminChangeBody,
        response: { 200: adminAnswer('Changed: the admin'), 202: heldAnswer('admin.change'), ...errors, ...problemResponses(409, 412) },
      },
    },
    async (request, reply) => {
      const { principal } = authenticationOf(request);
      const held = await deps.held.updateAdmin(principal.id, request.params.adminId, request.body, revisionOf(request.headers['if-match']));
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, principal.id));
      const admin = held.ran;
      const features = await tenantFeatures(deps, principal.tenantId);
      return reply.header('ETag', adminEtag(admin)).send(adminView(admin, features));
    },
  );

  app.delete(
    '/api/admins/:adminId',
    {
      config: { auditRefusalsAs: 'admin.remove' },
      preHandler: app.requireWallet,
      schema: {
        operationId: 'removeAdmin',
        summary: 'Remove an admin (admins:manage, over an admin below the caller): its record stays for the audit log, its wallets go',
        description: 'The admins below it move to the caller. Its signed-in sessions end on every instance within AUTH_STATE_REFRESH.',
        tags: ['admins'],
        security: WALLET_SECURITY,
        params: AdminParams,
        response: {
          204: { description: 'Removed', type: 'null' },
          202: heldAnswer('admin.remove'),
          ...errors,
          ...problemResponses(409, 412),
        },
      },
    },
    async (request, reply) => {
      const { principal } = authenticationOf(request);
      const held = await deps.held.removeAdmin(principal.id, request.params.adminId, revisionOf(request.headers['if-match']));
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, principal.id));
      return reply.code(204).send(null);
    },
  );
}
