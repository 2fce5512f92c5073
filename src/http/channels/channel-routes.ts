import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { jsonAnswer, PAGE } from '../schemas/answer.ts';
import { FolderSchema } from '../schemas/channels.ts';
import { EXAMPLE_AUDIT_PAGE, EXAMPLE_BACKUP, EXAMPLE_BACKUP_PAGE, EXAMPLE_FOLDER_PAGE } from '../schemas/examples.ts';
import { AuditEventSchema, AuditQuery, BackupSchema, ChannelParams, PageQuery, pageOf } from '../schemas/files.ts';
import { channelErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import type { FilesRouteDeps } from './deps.ts';
import { pageRequestOf } from './page-request.ts';
import { actorOf, channelOf } from './scope.ts';
import { auditView, backupView, folderView } from './views.ts';

const errors = channelErrorResponses;

/** Folders, backups and the audit log of a channel; registered in the channel scope. */
export default async function channelRoutes(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/folders',
    {
      config: { permission: 'files:read' },
      schema: {
        operationId: 'listFolders',
        summary: 'Folders of the channel that hold at least one live file, by name, with their file counts',
        tags: ['files'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        querystring: PageQuery,
        response: { 200: jsonAnswer(pageOf(FolderSchema), PAGE, EXAMPLE_FOLDER_PAGE), ...errors },
      },
    },
    async (request) => {
      const page = await deps.files.listFolders(channelOf(request), pageRequestOf(request.query));
      return { items: page.items.map(folderView), next: page.next };
    },
  );

  app.post(
    '/api/channels/:channelRef/backups',
    {
      config: { permission: 'backups:create' },
      schema: {
        operationId: 'createBackup',
        summary: 'Back up every folder of the channel now (one backup per channel per second)',
        tags: ['backups'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        response: {
          201: jsonAnswer(BackupSchema, 'Backed up: the backup', EXAMPLE_BACKUP),
          ...errors,
          // Its 409 example is the one a backup gives most (BACKUP_EXISTS); a channel name can be NAME_AMBIGUOUS too.
          ...problemResponses(409, 413, 415, 507),
        },
      },
    },
    async (request, reply) => {
      const channel = channelOf(request);
      const backup = await deps.backups.create(channel, actorOf(request), 'api');
      const names = await deps.adminNames.of(channel, [backup.createdBy]);
      return reply.code(201).send(backupView(backup, names));
    },
  );

  app.get(
    '/api/channels/:channelRef/backups',
    {
      config: { permission: 'files:read' },
      schema: {
        operationId: 'listBackups',
        summary: 'Backups of the channel, newest first',
        tags: ['backups'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        querystring: PageQuery,
        response: { 200: jsonAnswer(pageOf(BackupSchema), PAGE, EXAMPLE_BACKUP_PAGE), ...errors },
      },
    },
    async (request) => {
      const channel = channelOf(request);
      const page = await deps.backups.list(channel, pageRequestOf(request.query));
      const admins = page.items.map((b) => b.createdBy);
      const names = await deps.adminNames.of(channel, admins);
      return { items: page.items.map((b) => backupView(b, names)), next: page.next };
    },
  );

  app.get(
    '/api/channels/:channelRef/audit',
    {
      config: { permission: 'audit:read' },
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
