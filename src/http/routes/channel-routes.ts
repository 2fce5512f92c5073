import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { resolveChannel } from '../../files/channel-access.ts';
import { auditView, backupView } from '../file-views.ts';
import type { FilesRouteDeps } from '../files-route-deps.ts';
import { authenticationOf } from '../plugins/wallet-auth.ts';
import { AuditEventSchema, BackupSchema, ChannelParams, PageQuery, pageOf } from '../schemas/files.ts';
import { authenticatedErrorResponses, problemRef } from '../schemas/problem.ts';
import { pageRequestOf } from '../page-request.ts';

const errors = { ...authenticatedErrorResponses, 400: problemRef, 404: problemRef };

/** Backups and the audit log of a channel. */
export default async function channelRoutes(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/api/channels/:channelRef/backups', {
    preHandler: app.requireWallet,
    schema: {
      summary: 'Back up every folder of the channel now (one backup per channel per second)',
      tags: ['backups'],
      params: ChannelParams,
      response: { 201: BackupSchema, ...errors, 409: problemRef, 507: problemRef },
    },
  }, async (request, reply) => {
    const { principal } = authenticationOf(request);
    const channel = await resolveChannel(deps.store, principal, request.params.channelRef, 'backups:create');
    const backup = await deps.backups.create(channel, { adminId: principal.id });
    return reply.code(201).send(backupView(backup));
  });

  app.get('/api/channels/:channelRef/backups', {
    preHandler: app.requireWallet,
    schema: { summary: 'Backups of the channel, newest first', tags: ['backups'], params: ChannelParams, querystring: PageQuery, response: { 200: pageOf(BackupSchema), ...errors } },
  }, async (request) => {
    const channel = await resolveChannel(deps.store, authenticationOf(request).principal, request.params.channelRef, 'files:read');
    const page = await deps.backups.list(channel, pageRequestOf(request.query));
    return { items: page.items.map(backupView), next: page.next };
  });

  app.get('/api/channels/:channelRef/audit', {
    preHandler: app.requireWallet,
    schema: { summary: 'Audit log of the channel, newest first', tags: ['audit'], params: ChannelParams, querystring: PageQuery, response: { 200: pageOf(AuditEventSchema), ...errors } },
  }, async (request) => {
    const channel = await resolveChannel(deps.store, authenticationOf(request).principal, request.params.channelRef, 'audit:read');
    const page = await deps.catalog.listAudit(channel.id, pageRequestOf(request.query));
    return { items: page.items.map(auditView), next: page.next };
  });
}
