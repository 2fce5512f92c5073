import { json, readToEnd } from './answers.ts';
import type { Call } from './client.ts';
import type { AuditEvent, AuditQuery, ChannelInfo, Page, PageRequest, Principal } from './types.ts';

// The tenant's self-service (docs/administration.md): admins, their wallets, invitations, channels
// and the tenant-wide audit log. Kept apart from client.ts, whose endpoints are the files'.

/** ACTIVE, SUSPENDED (signed out, refused until reactivated) or REMOVED (kept for the audit log, no wallets). */
export type AdminStatus = 'ACTIVE' | 'SUSPENDED' | 'REMOVED';

/** An admin of the tenant (GET /api/admins/{adminId}). */
export interface AdminRecord extends Omit<Principal, 'status'> {
  status: AdminStatus;
  /** EIP-55 addresses. */
  wallets: string[];
  /** RFC 3339. */
  createdAt: string;
}

/** The list's filters (AND) and its page. */
export interface AdminQuery extends PageRequest {
  status?: AdminStatus;
  /** Only admins holding this permission. */
  permission?: string;
  /** Only admins linked to this channel (id or name). */
  channel?: string;
}

/** What PATCH /api/admins/{adminId} changes: `permissions` replaces the granted set. */
export interface AdminUpdate {
  displayName?: string;
  permissions?: string[];
  status?: 'ACTIVE' | 'SUSPENDED';
}

export interface AdminWallet {
  address: string;
  /** RFC 3339. */
  addedAt: string;
}

/** EIP-4361 text the new wallet signs to prove it is the admin's. */
export interface WalletChallenge {
  message: string;
  /** RFC 3339. */
  expiresAt: string;
}

export interface InvitationRequest {
  permissions: string[];
  /** Channel ids or names. */
  channels: string[];
  /** Seconds, at most INVITATION_MAX_SECONDS (7 days). */
  expiresIn: number;
  /** Only this wallet may accept it. */
  wallet?: string;
  displayName?: string;
}

/** An invitation as the service keeps it (never its token). */
export interface InvitationInfo {
  /** inv_… */
  id: string;
  inviterAdminId: string;
  displayName: string | null;
  /** The one wallet that may accept it; null: any. */
  wallet: string | null;
  permissions: string[];
  channelIds: string[];
  state: 'pending' | 'accepted' | 'revoked' | 'expired';
  /** RFC 3339. */
  createdAt: string;
  /** RFC 3339. */
  expiresAt: string;
  acceptedAdminId: string | null;
}

/** A new invitation: `token` and `url` are answered this once (the service keeps only a hash). */
export interface Invitation extends InvitationInfo {
  token: string;
  /** The console's /console/invite#token=… */
  url: string;
}

/** The tenant's audit log: the channels' events and the administration events (who acted, on whom, before and after). */
export interface TenantAuditEvent extends AuditEvent {
  /** The channel it concerns; null for an event on an admin or an invitation. */
  channelId: string | null;
  /** The admin acted on (adm_…); null for an event acting on no admin. */
  targetAdminId: string | null;
  /** The record before (null for a creation) and after an administration event; null on the channels' file events. */
  change: { before: Record<string, unknown> | null; after: Record<string, unknown> | null } | null;
}

/** The filters (AND) of GET /api/audit, and its page: a channel log's, and whom and which channel. */
export interface TenantAuditQuery extends Omit<AuditQuery, 'action'> {
  /** A file action (upload, delete, backup, restore) or an administration one (admin.update, channel.link…). */
  action?: string;
  targetAdminId?: string;
  channelId?: string;
}

const adminPath = (adminId: string) => `/api/admins/${encodeURIComponent(adminId)}`;
const jsonBody = (value: unknown) => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });

/** The administration endpoints, each sent by the client's `signed` (which re-signs an expired message). */
export function administrationCalls(signed: (call: Call) => Promise<Response>, channelPath: (channelRef: string) => string) {
  return {
    /** Owners: the tenant's admins; sub-admins: themselves and the admins below them. */
    listAdmins: async (query: AdminQuery = {}): Promise<Page<AdminRecord>> =>
      json(await signed({ method: 'GET', path: '/api/admins', query: { ...query } })),

    updateAdmin: async (adminId: string, update: AdminUpdate): Promise<AdminRecord> =>
      json(await signed({ method: 'PATCH', path: adminPath(adminId), ...jsonBody(update) })),

    /** The admins below it move to the caller; the record stays, REMOVED, for the audit log. */
    async removeAdmin(adminId: string): Promise<void> {
      await readToEnd(await signed({ method: 'DELETE', path: adminPath(adminId) }));
    },

    listAdminWallets: async (adminId: string): Promise<{ items: AdminWallet[] }> =>
      json(await signed({ method: 'GET', path: `${adminPath(adminId)}/wallets` })),

    /** The text `wallet` must sign for addAdminWallet. */
    walletChallenge: async (adminId: string, wallet: string): Promise<WalletChallenge> =>
      json(await signed({ method: 'POST', path: `${adminPath(adminId)}/wallets/challenge`, ...jsonBody({ wallet }) })),

    addAdminWallet: async (adminId: string, proof: { message: string; signature: string }): Promise<AdminWallet> =>
      json(await signed({ method: 'POST', path: `${adminPath(adminId)}/wallets`, ...jsonBody(proof) })),

    createInvitation: async (invitation: InvitationRequest): Promise<Invitation> =>
      json(await signed({ method: 'POST', path: '/api/invitations', ...jsonBody(invitation) })),

    /** The invitations the caller may see (an owner: the tenant's; a sub-admin: its own and those below it), newest first; never a token. */
    listInvitations: async (page: PageRequest = {}): Promise<Page<InvitationInfo>> =>
      json(await signed({ method: 'GET', path: '/api/invitations', query: { ...page } })),

    /** It can no longer be accepted. */
    async revokeInvitation(invitationId: string): Promise<void> {
      await readToEnd(await signed({ method: 'DELETE', path: `/api/invitations/${encodeURIComponent(invitationId)}` }));
    },

    /** Signed in by a wallet that is no admin yet: it becomes the new admin, whose record is answered. */
    acceptInvitation: async (token: string, options: { displayName?: string } = {}): Promise<AdminRecord> =>
      json(await signed({ method: 'POST', path: `/api/invitations/${encodeURIComponent(token)}/accept`, ...jsonBody(options) })),

    /** The creator is linked to the new channel. */
    createChannel: async (name: string): Promise<ChannelInfo> =>
      json(await signed({ method: 'POST', path: '/api/channels', ...jsonBody({ name }) })),

    /** Renames it, or archives it (read-only) or brings it back. */
    updateChannel: async (channelRef: string, update: { name?: string; archived?: boolean }): Promise<ChannelInfo> =>
      json(await signed({ method: 'PATCH', path: channelPath(channelRef), ...jsonBody(update) })),

    listChannelAdmins: async (channelRef: string): Promise<{ items: AdminRecord[] }> =>
      json(await signed({ method: 'GET', path: `${channelPath(channelRef)}/admins` })),

    async linkChannelAdmin(channelRef: string, adminId: string): Promise<void> {
      await readToEnd(await signed({ method: 'PUT', path: `${channelPath(channelRef)}/admins/${encodeURIComponent(adminId)}` }));
    },

    async unlinkChannelAdmin(channelRef: string, adminId: string): Promise<void> {
      await readToEnd(await signed({ method: 'DELETE', path: `${channelPath(channelRef)}/admins/${encodeURIComponent(adminId)}` }));
    },

    /** Newest first; the filters combine with AND. Pass the same filters with a page's cursor. */
    listTenantAudit: async (query: TenantAuditQuery = {}): Promise<Page<TenantAuditEvent>> => {
      // Names go in NFC, the form the service stores them in (as the channel log's filters do).
      const { folder, filename, ...rest } = query;
      return json(
        await signed({
          method: 'GET',
          path: '/api/audit',
          query: { ...rest, folder: folder?.normalize('NFC'), filename: filename?.normalize('NFC') },
        }),
      );
    },
  };
}
