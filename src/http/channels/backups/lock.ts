import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { LockChange } from '../../../files/backup-lock-rules.ts';
import { lockChangeOf } from '../../../files/backup-lock-rules.ts';
import type { LockActor } from '../../../files/backup-locks.ts';
import type { Channel } from '../../../model/channels.ts';
import { sendProposal, shownProposal } from '../../proposals/support/views.ts';
import { jsonAnswer } from '../../schemas/answer.ts';
import { heldAnswer } from '../../schemas/approvals-examples.ts';
import { EXAMPLE_BACKUP, EXAMPLE_LOCKED_BACKUP } from '../../schemas/examples.ts';
import { BackupLockBody, BackupParams, BackupSchema } from '../../schemas/files.ts';
import { backupLockErrorResponses } from '../../schemas/problem.ts';
import { WALLET_SECURITY } from '../../schemas/security.ts';
import { channelOf, lockActorOf } from '../support/channel-scope.ts';
import type { FilesRouteDeps } from '../support/deps.ts';
import { backupView } from '../support/views.ts';

/** The members of a lock body, as the API names them in its refusals. */
const BODY_NAMES = { mode: 'mode', until: 'until', legalHold: 'legalHold' };

/** A backup's lock and legal hold (docs/backup-locks.md); registered in the channel scope. */
export default async function backupLockRoutes(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.put(
    '/api/channels/:channelRef/backups/:backupTimestamp/lock',
    {
      // The body's rules (mode with until, something asked) are checked once the channel is entered, as a channel
      // one may not see must answer 404 whatever the body.
      preHandler: app.enterChannel({ permission: 'backups:lock' }),
      schema: {
        operationId: 'lockBackup',
        summary: 'Lock a backup (mode and until), put it under legal hold or release it (legalHold), or both at once',
        description:
          'mode governance: an owner may shorten or lift it; compliance: nobody may before until, only extend it (409 LOCK_NOT_SHORTENABLE). ' +
          'until is in the future (400 LOCK_IN_PAST) and at most BACKUP_LOCK_MAX_DAYS from now (400 LOCK_TOO_LONG). ' +
          'Shortening a governance lock or releasing a legal hold needs an owner (403 OWNER_REQUIRED). ' +
          'Both in one body are applied together, or neither. A request that changes nothing answers the backup as it is. See docs/backup-locks.md.',
        tags: ['backups'],
        security: WALLET_SECURITY,
        params: BackupParams,
        body: BackupLockBody,
        response: {
          200: jsonAnswer(BackupSchema, 'The backup with its lock now', EXAMPLE_LOCKED_BACKUP),
          202: heldAnswer('backup.lock'),
          ...backupLockErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const channel = channelOf(request);
      const change = lockChangeOf(request.body, BODY_NAMES);
      return lockAnswer(reply, deps, channel, lockActorOf(request), request.params.backupTimestamp, change);
    },
  );

  app.delete(
    '/api/channels/:channelRef/backups/:backupTimestamp/lock',
    {
      preHandler: app.enterChannel({ permission: 'backups:lock' }),
      schema: {
        operationId: 'unlockBackup',
        summary: "Lift a backup's retention lock (an owner, for a governance lock before its date); a legal hold stays",
        description:
          'A compliance lock before its date: 409 BACKUP_LOCKED. A governance lock before its date: an owner only (403 OWNER_REQUIRED). ' +
          'A lock past its date, or none: lifted by anyone with backups:lock. The legal hold is released with PUT {"legalHold": false}.',
        tags: ['backups'],
        security: WALLET_SECURITY,
        params: BackupParams,
        response: {
          200: jsonAnswer(BackupSchema, 'The backup with its lock now', EXAMPLE_BACKUP),
          202: heldAnswer('backup.lock'),
          ...backupLockErrorResponses,
        },
      },
    },
    async (request, reply) => {
      return lockAnswer(reply, deps, channelOf(request), lockActorOf(request), request.params.backupTimestamp, { retention: null });
    },
  );
}

/** The backup with its lock now, or, when a policy holds the change, 202 and its proposal. */
async function lockAnswer(
  reply: FastifyReply,
  deps: FilesRouteDeps,
  channel: Channel,
  actor: LockActor,
  timestamp: string,
  change: LockChange,
) {
  const held = await deps.heldBackupLocks.change(channel, actor, timestamp, change);
  if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, actor.adminId!));
  return backupView(held.ran, await deps.adminNames.of(channel, [held.ran.createdBy]));
}
