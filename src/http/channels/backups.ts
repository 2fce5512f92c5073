import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { sendProposal, shownProposal } from '../proposals/support/views.ts';
import { jsonAnswer, PAGE } from '../schemas/answer.ts';
import { heldAnswer } from '../schemas/approvals-examples.ts';
import { EXAMPLE_BACKUP, EXAMPLE_BACKUP_PAGE } from '../schemas/examples.ts';
import { BackupParams, BackupSchema, ChannelParams, PageQuery, pageOf } from '../schemas/files.ts';
import { backupLockErrorResponses, channelErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { actorOf, channelOf, lockActorOf } from './support/channel-scope.ts';
import type { FilesRouteDeps } from './support/deps.ts';
import { pageRequestOf } from './support/page-request.ts';
import { backupView } from './support/views.ts';

const errors = channelErrorResponses;

/** Backing a channel up, its backups, and deleting one; registered in the channel scope. */
export default async function backupsRoutes(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/channels/:channelRef/backups',
    {
      preHandler: app.enterChannel({ permission: 'backups:create' }),
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
      preHandler: app.enterChannel({ permission: 'files:read' }),
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

  app.delete(
    '/api/channels/:channelRef/backups/:backupTimestamp',
    {
      preHandler: app.enterChannel({ permission: 'backups:delete' }),
      schema: {
        operationId: 'deleteBackup',
        summary: 'Delete a backup: the named instant only; the versions it named then fall to retention',
        description:
          'Refused with 409 BACKUP_LOCKED while the backup is under legal hold or a lock before its date, whoever asks ' +
          '(an owner lifts a governance lock first; a compliance lock nobody lifts). A repeated delete answers 404 BACKUP_NOT_FOUND. ' +
          'See docs/backup-locks.md.',
        tags: ['backups'],
        security: WALLET_SECURITY,
        params: BackupParams,
        response: { 204: { type: 'null', description: 'Deleted' }, 202: heldAnswer('backup.delete'), ...backupLockErrorResponses },
      },
    },
    async (request, reply) => {
      const actor = lockActorOf(request);
      const held = await deps.heldBackupLocks.delete(channelOf(request), actor, request.params.backupTimestamp);
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, actor.adminId!));
      return reply.code(204).send(null);
    },
  );
}
