import { pathSegment } from './encoding.ts';
import { conditionHeader, type IfMatch, json, jsonCall, readToEnd, type SignedSender } from './requests.ts';
import type { WalletSigner } from './signers.ts';
import type {
  Admin,
  AdminChanges,
  AdminQuery,
  AdminWallet,
  AuditHead,
  ChannelChanges,
  ChannelInfo,
  Invitation,
  IssuedInvitation,
  Items,
  NewAdmin,
  NewInvitation,
  Page,
  PageRequest,
  Tagged,
  TenantAuditEvent,
  TenantAuditQuery,
  WalletChallenge,
  WalletProof,
} from './types.ts';

/** The record of an answer, with the answer's ETag. */
async function tagged<T>(response: Response): Promise<T & { etag: string }> {
  const etag = response.headers.get('etag') ?? '';
  return { ...(await json<T>(response)), etag };
}

async function nothing(response: Response): Promise<void> {
  await readToEnd(response);
}

const adminPath = (adminId: string) => `/api/admins/${pathSegment(adminId)}`;
const channelPath = (channelRef: string) => `/api/channels/${pathSegment(channelRef)}`;

/**
 * The tenant's self-service (docs/administration.md): admins, their wallets, invitations, channels
 * and the tenant's audit log, each call signed in as the client's wallet.
 */
export function administrationCalls(signed: SignedSender) {
  const addWalletSigned = async (adminId: string, proof: WalletProof): Promise<AdminWallet> =>
    json(await signed(jsonCall('POST', `${adminPath(adminId)}/wallets`, proof)));

  return {
    /** Owners: the tenant's admins; a sub-admin: itself and the admins below it. Filters combine with AND. */
    listAdmins: async (query: AdminQuery = {}): Promise<Page<Admin>> => {
      const { status, permission, channel, limit, cursor } = query;
      return json(await signed({ method: 'GET', path: '/api/admins', query: { status, permission, channel, limit, cursor } }));
    },

    getAdmin: async (adminId: string): Promise<Tagged<Admin>> => tagged(await signed({ method: 'GET', path: adminPath(adminId) })),

    /** A sub-admin of the signed-in admin, or an owner (`owner: true`, owners only). */
    createAdmin: async (admin: NewAdmin): Promise<Tagged<Admin>> => tagged(await signed(jsonCall('POST', '/api/admins', admin))),

    /** `ifMatch`: the `etag` of the record read, to change it only if it is still that one (else 412, nothing changed). */
    updateAdmin: async (adminId: string, changes: AdminChanges, conditions: IfMatch = {}): Promise<Tagged<Admin>> =>
      tagged(await signed(jsonCall('PATCH', adminPath(adminId), changes, conditionHeader('If-Match', conditions.ifMatch)))),

    /** The record stays (REMOVED, no wallets); the admins below it move to the signed-in admin. `ifMatch` as for updateAdmin. */
    removeAdmin: async (adminId: string, conditions: IfMatch = {}): Promise<void> =>
      nothing(await signed({ method: 'DELETE', path: adminPath(adminId), headers: conditionHeader('If-Match', conditions.ifMatch) })),

    listWallets: async (adminId: string): Promise<Items<AdminWallet>> =>
      json(await signed({ method: 'GET', path: `${adminPath(adminId)}/wallets` })),

    /**
     * The typed data the new wallet must sign for addWallet (eth_signTypedData_v4); `chainId` is the
     * chain its domain names (a contract wallet is asked on it).
     */
    walletChallenge: async (adminId: string, wallet: string, chainId?: number): Promise<WalletChallenge> =>
      json(await signed(jsonCall('POST', `${adminPath(adminId)}/wallets/challenge`, { wallet, chainId }))),

    /**
     * Adds `wallet`'s account to the admin: the service's challenge, typed data signed by that wallet
     * (eth_signTypedData_v4), proves it. The signature is never a sign-in.
     */
    async addWallet(adminId: string, wallet: WalletSigner): Promise<AdminWallet> {
      if (wallet.signTypedData === undefined) throw new Error('This wallet signer cannot sign typed data (eth_signTypedData_v4)');
      const [address, chainId] = await Promise.all([wallet.getAddress(), wallet.getChainId()]);
      const { typedData } = await json<WalletChallenge>(
        await signed(jsonCall('POST', `${adminPath(adminId)}/wallets/challenge`, { wallet: address, chainId })),
      );
      return addWalletSigned(adminId, { typedData, signature: await wallet.signTypedData(typedData) });
    },

    /** As addWallet, for a challenge (walletChallenge) whose typed data the new wallet signed elsewhere: a hardware wallet, another machine. */
    addWalletSigned,

    /** Its signed-in sessions end; an admin keeps at least one wallet (409 LAST_WALLET). */
    removeWallet: async (adminId: string, address: string): Promise<void> =>
      nothing(await signed({ method: 'DELETE', path: `${adminPath(adminId)}/wallets/${pathSegment(address)}` })),

    /** The answer's `token` is shown this once: hand it (or its `url`) to the invitee. */
    createInvitation: async (invitation: NewInvitation): Promise<IssuedInvitation> =>
      json(await signed(jsonCall('POST', '/api/invitations', invitation))),

    /** Each with its `state` (pending, accepted, revoked, expired), never its token. */
    listInvitations: async (page: PageRequest = {}): Promise<Page<Invitation>> =>
      json(await signed({ method: 'GET', path: '/api/invitations', query: { limit: page.limit, cursor: page.cursor } })),

    revokeInvitation: async (invitationId: string): Promise<void> =>
      nothing(await signed({ method: 'DELETE', path: `/api/invitations/${pathSegment(invitationId)}` })),

    /** Signed in as the invited wallet (no admin yet): it becomes the new admin, answered here. */
    acceptInvitation: async (token: string, options: { displayName?: string } = {}): Promise<Tagged<Admin>> =>
      tagged(await signed(jsonCall('POST', `/api/invitations/${pathSegment(token)}/accept`, options))),

    /** The signed-in admin is linked to the new channel. */
    createChannel: async (name: string): Promise<ChannelInfo> =>
      json(await signed(jsonCall('POST', '/api/channels', { name: name.normalize('NFC') }))),

    /** Renames it, or archives it (read-only) or brings it back. */
    updateChannel: async (channelRef: string, changes: ChannelChanges): Promise<ChannelInfo> =>
      json(await signed(jsonCall('PATCH', channelPath(channelRef), { ...changes, name: changes.name?.normalize('NFC') }))),

    listChannelAdmins: async (channelRef: string): Promise<Items<Admin>> =>
      json(await signed({ method: 'GET', path: `${channelPath(channelRef)}/admins` })),

    linkAdmin: async (channelRef: string, adminId: string): Promise<void> =>
      nothing(await signed({ method: 'PUT', path: `${channelPath(channelRef)}/admins/${pathSegment(adminId)}` })),

    unlinkAdmin: async (channelRef: string, adminId: string): Promise<void> =>
      nothing(await signed({ method: 'DELETE', path: `${channelPath(channelRef)}/admins/${pathSegment(adminId)}` })),

    /** The tenant's channel and administration events the signed-in admin may see, newest first. */
    tenantAudit: async (query: TenantAuditQuery = {}): Promise<Page<TenantAuditEvent>> => {
      const { action, adminId, targetAdminId, channelId, folder, filename, result, operationId, limit, cursor } = query;
      // Names in NFC, the form the service stores them in (as listAudit sends them).
      const filters = { action, adminId, targetAdminId, channelId, result, operationId, limit, cursor };
      const names = { folder: folder?.normalize('NFC'), filename: filename?.normalize('NFC') };
      return json(await signed({ method: 'GET', path: '/api/audit', query: { ...filters, ...names } }));
    },

    /**
     * The tenant's audit chain as JSON Lines (an owner), oldest first, after the entry `after` (0: from
     * the first): what `wallet-admin audit verify` and the console's verifier check (docs/audit-chain.md).
     */
    exportTenantAudit: async (query: { after?: number } = {}): Promise<string> =>
      (await signed({ method: 'GET', path: '/api/audit/export', query: { after: query.after } })).text(),

    /** The chain's last entry (an owner): its seq and hash, the head to publish elsewhere. */
    auditHead: async (): Promise<AuditHead> => json(await signed({ method: 'GET', path: '/api/audit/head' })),
  };
}
