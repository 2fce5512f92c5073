import { type Kysely, type Selectable, sql } from 'kysely';
import { AppError } from '../errors/app-error.ts';
import { walletTaken } from '../errors/common-errors.ts';
import { newAdminId, newInvitationId } from '../model/ids.ts';
import { type Invitation, type InvitationRecords, invitationState, type WalletChallengeRecords } from '../model/invitations.ts';
import { requireAdmin } from './admin-records.ts';
import { ADMIN_WALLET_UNIQUE, violates, WALLET_UNIQUE } from './database-errors.ts';
import { inTransaction } from './in-transaction.ts';
import { normalizeWallet, requireName } from './input-validation.ts';
import { decodeCursor, pageFrom } from './page-cursor.ts';
import type { Database, InvitationsTable } from './schema.ts';

type Db = Kysely<Database>;

/** Invitations and the challenges new wallets sign (model/invitations.ts). */
export function invitationRecords(db: Db): InvitationRecords & WalletChallengeRecords {
  return {
    async createInvitation(input) {
      const invitation: Invitation = {
        id: newInvitationId(),
        tenantId: input.tenantId,
        inviterAdminId: input.inviterAdminId,
        // The name the new admin gets: the one rule of every name, as when an admin is made or renamed.
        displayName: input.displayName === null ? null : requireName(input.displayName, 'Display name'),
        wallet: input.wallet === null ? null : normalizeWallet(input.wallet),
        permissions: [...input.permissions].sort(),
        channelIds: [...input.channelIds].sort(),
        createdAt: input.createdAt,
        expiresAt: input.expiresAt,
        acceptedAt: null,
        acceptedAdminId: null,
        revokedAt: null,
      };
      await db
        .insertInto('invitations')
        .values({
          id: invitation.id,
          tenant_id: invitation.tenantId,
          inviter_admin_id: invitation.inviterAdminId,
          token_hash: input.tokenHash,
          display_name: invitation.displayName,
          wallet: invitation.wallet,
          permissions: JSON.stringify(invitation.permissions),
          channel_ids: JSON.stringify(invitation.channelIds),
          created_at: invitation.createdAt,
          expires_at: invitation.expiresAt,
        })
        .execute();
      return invitation;
    },

    async getInvitation(id) {
      const row = await db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toInvitation(row);
    },

    async findInvitationByTokenHash(tokenHash) {
      const row = await db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && toInvitation(row);
    },

    async listInvitations(tenantId, page, inviterIds) {
      let query = db.selectFrom('invitations').selectAll().where('tenant_id', '=', tenantId);
      if (inviterIds !== undefined) query = query.where('inviter_admin_id', 'in', inviterIds.length > 0 ? [...inviterIds] : ['-']);
      if (page.cursor !== undefined) {
        const [createdAt, id] = decodeCursor(page.cursor, ['number', 'string']);
        query = query.where(sql<boolean>`(created_at, id) < (${createdAt}, ${id})`);
      }
      const rows = await query
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit + 1)
        .execute();
      return pageFrom(rows.map(toInvitation), page.limit, (i) => [i.createdAt, i.id]);
    },

    async revokeInvitation(id, at) {
      const result = await db
        .updateTable('invitations')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async acceptInvitation(id, { wallet, displayName, at }) {
      const address = normalizeWallet(wallet);
      // Checked before the invitation is taken: a refused name leaves it pending.
      const name = requireName(displayName, 'Display name');
      const adminId = newAdminId();
      try {
        await inTransaction(db, async (trx) => {
          // The one acceptance that wins: a second one, even at the same moment, updates no row.
          const won = await trx
            .updateTable('invitations')
            .set({ accepted_at: at, accepted_admin_id: adminId })
            .where('id', '=', id)
            .where('accepted_at', 'is', null)
            .where('revoked_at', 'is', null)
            .where('expires_at', '>', at)
            .executeTakeFirst();
          if (won.numUpdatedRows === 0n) {
            const row = await trx.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirst();
            throw notPending(row === undefined ? undefined : toInvitation(row), at);
          }
          const invitation = toInvitation(
            (await trx.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirstOrThrow())!,
          );
          await trx
            .insertInto('admins')
            .values({
              id: adminId,
              tenant_id: invitation.tenantId,
              wallet: address,
              display_name: name,
              owner_admin_id: invitation.inviterAdminId,
              status: 'ACTIVE',
              created_at: at,
              updated_at: at,
            })
            .execute();
          await trx
            .insertInto('admin_wallets')
            .values({ wallet: address, admin_id: adminId, tenant_id: invitation.tenantId, added_at: at })
            .execute();
          if (invitation.permissions.length > 0)
            await trx
              .insertInto('admin_permissions')
              .values(invitation.permissions.map((permission) => ({ admin_id: adminId, permission })))
              .execute();
          // A channel deleted since the invitation was made is not there to link.
          const channels =
            invitation.channelIds.length === 0
              ? []
              : await trx
                  .selectFrom('channels')
                  .select('id')
                  .where('tenant_id', '=', invitation.tenantId)
                  .where('id', 'in', invitation.channelIds)
                  .execute();
          if (channels.length > 0)
            await trx
              .insertInto('channel_admins')
              .values(channels.map((c) => ({ channel_id: c.id, admin_id: adminId, tenant_id: invitation.tenantId })))
              .execute();
        });
      } catch (error) {
        throw violates(error, WALLET_UNIQUE) || violates(error, ADMIN_WALLET_UNIQUE) ? walletTaken(address) : error;
      }
      return requireAdmin(db, adminId);
    },

    async saveWalletChallenge(challenge) {
      await db
        .insertInto('wallet_challenges')
        .values({
          message_hash: challenge.messageHash,
          admin_id: challenge.adminId,
          wallet: normalizeWallet(challenge.wallet),
          chain_id: challenge.chainId,
          expires_at: challenge.expiresAt,
        })
        .execute();
      // Challenges nobody answered go once they expire; a few rows at most per admin.
      await db
        .deleteFrom('wallet_challenges')
        .where('expires_at', '<', challenge.expiresAt - 86_400_000)
        .execute();
    },

    async openWalletChallenge(messageHash, at) {
      const row = await db
        .selectFrom('wallet_challenges')
        .selectAll()
        .where('message_hash', '=', messageHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      return (
        row && {
          messageHash: row.message_hash,
          adminId: row.admin_id,
          wallet: row.wallet,
          chainId: Number(row.chain_id),
          expiresAt: Number(row.expires_at),
        }
      );
    },

    async useWalletChallenge(messageHash, at) {
      const used = await db
        .updateTable('wallet_challenges')
        .set({ used_at: at })
        .where('message_hash', '=', messageHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      if (used.numUpdatedRows === 0n) return undefined;
      const row = await db.selectFrom('wallet_challenges').selectAll().where('message_hash', '=', messageHash).executeTakeFirstOrThrow();
      return {
        messageHash: row.message_hash,
        adminId: row.admin_id,
        wallet: row.wallet,
        chainId: Number(row.chain_id),
        expiresAt: Number(row.expires_at),
      };
    },
  };
}

/** Why an invitation could not be accepted. */
export function notPending(invitation: Invitation | undefined, at: number): AppError {
  if (invitation === undefined) return new AppError('INVITATION_NOT_FOUND', 'No such invitation: check the link, or ask for a new one');
  switch (invitationState(invitation, at)) {
    case 'accepted':
      return new AppError('INVITATION_USED', 'This invitation was accepted already; an invitation is used once');
    case 'revoked':
      return new AppError('INVITATION_REVOKED', 'This invitation was revoked; ask for a new one');
    default:
      return new AppError('INVITATION_EXPIRED', 'This invitation has expired; ask for a new one');
  }
}

function toInvitation(row: Selectable<InvitationsTable>): Invitation {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    inviterAdminId: row.inviter_admin_id,
    displayName: row.display_name,
    wallet: row.wallet,
    permissions: JSON.parse(row.permissions) as string[],
    channelIds: JSON.parse(row.channel_ids) as string[],
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    acceptedAt: row.accepted_at === null ? null : Number(row.accepted_at),
    acceptedAdminId: row.accepted_admin_id,
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}
