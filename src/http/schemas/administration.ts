import { Type } from 'typebox';
import { WALLET_PROOF_DOMAIN_NAME, WALLET_PROOF_PRIMARY_TYPE, WALLET_PROOF_VERSION } from '../../administration/wallet-proof-typed-data.ts';
import { ADMIN_STATUSES } from '../../model/admins.ts';
import { TENANT_AUDIT_ACTIONS } from '../../model/audit.ts';
import { INVITATION_STATES } from '../../model/invitations.ts';
import { ALL_PERMISSIONS } from '../../model/permissions.ts';
import { EXAMPLE_ADMIN, EXAMPLE_INVITATION, EXAMPLE_ISSUED_INVITATION, EXAMPLE_WALLET_RECORD } from './administration-examples.ts';
import { AuditEventSchema, AuditQuery, ChannelParams, PageQuery } from './files.ts';
import { responseHeader } from './response-header-shapes.ts';

/** The shapes of tenant self-service (docs/administration.md): admins, wallets, invitations, channel management, the tenant's log. */

const permission = Type.Enum([...ALL_PERMISSIONS]);
const wallet = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'An Ethereum address' });
const channelRefs = Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
  maxItems: 1000,
  description: 'Channel ids (chn_…) or names of the tenant',
});
const displayName = Type.String({ minLength: 1, maxLength: 200 });

// Each with an example, which the reference's "Try it out" and the problems' examples use.
export const AdminParams = Type.Object({
  adminId: Type.String({ minLength: 1, maxLength: 200, description: 'An admin id (adm_…)', examples: [EXAMPLE_ADMIN.id] }),
});
export const WalletParams = Type.Object({
  ...AdminParams.properties,
  // Checked by the service once the caller is known (401 before 400, as for every operation).
  address: Type.String({ maxLength: 100, description: 'An Ethereum address', examples: [EXAMPLE_WALLET_RECORD.address] }),
});
export const ChannelAdminParams = Type.Object({ ...ChannelParams.properties, ...AdminParams.properties });
export const InvitationParams = Type.Object({
  invitationId: Type.String({ minLength: 1, maxLength: 200, description: 'An invitation id (inv_…)', examples: [EXAMPLE_INVITATION.id] }),
});
export const InvitationTokenParams = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The token of the invitation link',
    examples: [EXAMPLE_ISSUED_INVITATION.token],
  }),
});

/** An admin as the API shows it: the principal's members, plus its wallets and when it was made. */
export const AdminSchema = Type.Object({
  id: Type.String({ pattern: '^adm_' }),
  type: Type.Literal('ADMIN'),
  displayName: Type.String(),
  tenantId: Type.String({ pattern: '^t_' }),
  ownerAdminId: Type.String({ description: 'The admin it is below; N/A for an owner' }),
  status: Type.Enum(['ACTIVE', 'SUSPENDED', 'REMOVED']),
  channelIds: Type.Array(Type.String({ pattern: '^chn_' })),
  effectivePermissions: Type.Array(Type.String()),
  effectiveFeatures: Type.Array(Type.String()),
  wallets: Type.Array(Type.String(), { description: 'EIP-55 addresses, oldest first; none once removed' }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const AdminListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Type.Enum(['ACTIVE', 'SUSPENDED', 'REMOVED'], { description: 'Only admins in this state' })),
  permission: Type.Optional(Type.Enum([...ALL_PERMISSIONS], { description: 'Only admins holding this permission' })),
  channel: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Only admins linked to this channel (id or name)' })),
});

export const NewAdminBody = Type.Object(
  {
    displayName,
    wallet,
    permissions: Type.Array(permission, { maxItems: 100, default: [] }),
    channels: Type.Optional(channelRefs),
    owner: Type.Optional(Type.Boolean({ description: 'true: another owner (owners only); otherwise a sub-admin of the caller' })),
  },
  { additionalProperties: false },
);

export const AdminChangeBody = Type.Object(
  {
    displayName: Type.Optional(displayName),
    permissions: Type.Optional(Type.Array(permission, { maxItems: 100, description: 'Replaces the granted permissions' })),
    status: Type.Optional(Type.Enum([...ADMIN_STATUSES])),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const WalletSchema = Type.Object({
  address: Type.String({ description: 'EIP-55' }),
  addedAt: Type.String({ format: 'date-time' }),
});

export const WalletChallengeBody = Type.Object(
  {
    wallet,
    chainId: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "The chain the typed data's domain names (a contract wallet is asked on it); default the first of AUTH_CHAIN_IDS, else 1",
      }),
    ),
  },
  { additionalProperties: false },
);

const typedDataField = Type.Object(
  { name: Type.String({ maxLength: 100 }), type: Type.String({ maxLength: 100 }) },
  { additionalProperties: false },
);

/** The EIP-712 typed data of a wallet proof (docs/administration.md): what the new wallet signs, never a sign-in. */
const WalletProofTypedDataSchema = Type.Object(
  {
    domain: Type.Object(
      {
        name: Type.Literal(WALLET_PROOF_DOMAIN_NAME),
        version: Type.Literal(WALLET_PROOF_VERSION),
        chainId: Type.Integer({ minimum: 1 }),
      },
      { additionalProperties: false },
    ),
    types: Type.Object(
      {
        EIP712Domain: Type.Array(typedDataField, { maxItems: 10 }),
        AddWallet: Type.Array(typedDataField, { maxItems: 20 }),
      },
      { additionalProperties: false },
    ),
    primaryType: Type.Literal(WALLET_PROOF_PRIMARY_TYPE),
    message: Type.Object(
      {
        statement: Type.String({ maxLength: 1000, description: 'What signing it does, in words' }),
        service: Type.String({ maxLength: 1000, description: "The service's public URL" }),
        tenant: Type.String({ maxLength: 200 }),
        admin: Type.String({ maxLength: 200, description: 'The admin the wallet joins' }),
        wallet: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'The new wallet, EIP-55' }),
        nonce: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }),
        deadline: Type.Integer({ minimum: 0, description: 'Unix seconds: refused from then on' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'EIP-712 typed data, as eth_signTypedData_v4 takes it' },
);

export const WalletChallengeSchema = Type.Object({
  typedData: WalletProofTypedDataSchema,
  expiresAt: Type.String({ format: 'date-time' }),
});

export const WalletProofBody = Type.Object(
  {
    typedData: { ...WalletProofTypedDataSchema, description: "The challenge's typedData, exactly as POST …/wallets/challenge gave it" },
    signature: Type.String({
      pattern: '^0x[0-9a-fA-F]*$',
      maxLength: 20000,
      description: "The new wallet's eth_signTypedData_v4 signature of typedData (a contract wallet's: any length, checked by EIP-1271)",
    }),
  },
  { additionalProperties: false },
);

export const NewInvitationBody = Type.Object(
  {
    permissions: Type.Array(permission, { maxItems: 100 }),
    channels: Type.Optional(channelRefs),
    expiresIn: Type.Integer({ minimum: 60, description: 'Seconds until it expires; at most INVITATION_MAX_SECONDS (7 days by default)' }),
    wallet: Type.Optional(wallet),
    displayName: Type.Optional(displayName),
  },
  { additionalProperties: false },
);

export const InvitationSchema = Type.Object({
  id: Type.String({ pattern: '^inv_' }),
  inviterAdminId: Type.String(),
  displayName: Type.Union([Type.String(), Type.Null()]),
  wallet: Type.Union([Type.String(), Type.Null()], { description: 'The one wallet that may accept it; null: any' }),
  permissions: Type.Array(Type.String()),
  channelIds: Type.Array(Type.String()),
  state: Type.Enum([...INVITATION_STATES]),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  acceptedAdminId: Type.Union([Type.String(), Type.Null()]),
});

export const IssuedInvitationSchema = Type.Object({
  ...InvitationSchema.properties,
  token: Type.String({ description: 'Shown once: the service keeps only its SHA-256' }),
  url: Type.String({
    format: 'uri',
    description: "The console's page that accepts it; the token is in the fragment, which no server receives",
  }),
});

export const AcceptInvitationBody = Type.Object({ displayName: Type.Optional(displayName) }, { additionalProperties: false });

/** The token in the body, not the URL: a URL reaches the access logs of every proxy on the way, a body does not. */
export const InvitationPreviewBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the invitation link (after #token=)' }) },
  { additionalProperties: false },
);

/** What accepting an invitation grants, and who asks: shown to its link's holder before they accept. */
export const InvitationPreviewSchema = Type.Object({
  id: Type.String({ pattern: '^inv_' }),
  tenant: Type.Object({ id: Type.String({ pattern: '^t_' }), name: Type.String() }),
  inviter: Type.Object({ id: Type.String({ pattern: '^adm_' }), displayName: Type.String() }),
  displayName: Type.Union([Type.String(), Type.Null()], { description: 'The name the inviter suggested; the invitee may give another' }),
  wallet: Type.Union([Type.String(), Type.Null()], { description: 'The one wallet that may accept it; null: any' }),
  permissions: Type.Array(Type.String()),
  channels: Type.Array(Type.Object({ id: Type.String({ pattern: '^chn_' }), name: Type.String() })),
  owner: Type.Literal(false, { description: 'An invitation makes a sub-admin below its inviter, never an owner' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const NewChannelBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 255, description: 'Unique in the tenant; not starting with chn_' }) },
  { additionalProperties: false },
);

export const ChannelChangeBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    archived: Type.Optional(Type.Boolean({ description: 'true: read-only (uploads, deletes and restores refused); false: undone' })),
  },
  // Not minProperties: the channel is looked up first (404 before 400), and a change naming nothing is refused then.
  { additionalProperties: false },
);

/** An event of the tenant's log: a channel's event, or an administration event with the admin acted upon and the change. */
export const TenantAuditEventSchema = Type.Object({
  ...AuditEventSchema.properties,
  channelId: Type.Union([Type.String(), Type.Null()], { description: 'The channel it concerns; null for an admin or an invitation' }),
  targetAdminId: Type.Union([Type.String(), Type.Null()], { description: 'The admin acted upon' }),
  change: Type.Union([
    Type.Object({
      before: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
        description: 'The record before; null for a creation',
      }),
      after: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'The record after' }),
    }),
    Type.Null(),
  ]),
});

/** A channel log's filters (folder, filename, operationId), and the tenant's own: the channel, the admin acted upon, every action. */
export const TenantAuditQuery = Type.Object({
  ...AuditQuery.properties,
  action: Type.Optional(Type.Enum([...TENANT_AUDIT_ACTIONS], { description: 'Only events of this action' })),
  targetAdminId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only events acting on this admin' })),
  channelId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only events of this channel (chn_…)' })),
});

/** An admin record's version: send it back in If-Match to change the record only as read. */
export const ADMIN_ETAG = responseHeader("The admin record's version, for If-Match", { pattern: '^"r[0-9]+"$' }, true);
