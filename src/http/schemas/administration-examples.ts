import { walletProofTypedData } from '../../administration/wallet-proof-typed-data.ts';
import { EXAMPLE_ADMIN_ID, EXAMPLE_CHANNEL_ID, EXAMPLE_TENANT_ID, EXAMPLE_TIME } from './examples.ts';

/** Real answers of the administration operations, as the reference shows them. */

const SUB_ADMIN_ID = 'adm_q2m8x0d4vwb1k7s3n9c5f6h2tr';

export const EXAMPLE_ADMIN = {
  id: SUB_ADMIN_ID,
  type: 'ADMIN' as const,
  displayName: 'Grace',
  tenantId: EXAMPLE_TENANT_ID,
  ownerAdminId: EXAMPLE_ADMIN_ID,
  status: 'ACTIVE' as const,
  channelIds: [EXAMPLE_CHANNEL_ID],
  effectivePermissions: ['files:read', 'files:write'],
  effectiveFeatures: [],
  wallets: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'],
  createdAt: EXAMPLE_TIME,
};

export const EXAMPLE_ADMIN_PAGE = { items: [EXAMPLE_ADMIN], next: null };

export const EXAMPLE_WALLET_RECORD = { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', addedAt: EXAMPLE_TIME };

export const EXAMPLE_WALLET_PAGE = { items: [EXAMPLE_WALLET_RECORD] };

export const EXAMPLE_WALLET_CHALLENGE = {
  typedData: walletProofTypedData(1, {
    statement:
      `Add this wallet to the admin ${SUB_ADMIN_ID} of tenant ${EXAMPLE_TENANT_ID}. Once added, it signs in as that admin, ` +
      'with everything that admin may do. Sign only if you asked for this. This signature adds the wallet; it signs nobody in.',
    service: 'http://127.0.0.1:8080',
    tenant: EXAMPLE_TENANT_ID,
    admin: SUB_ADMIN_ID,
    wallet: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    nonce: '0x5f0c2b8e91d4a7c3e6b0f1a2d9c84e7b3a6f1d0c5e8b2a7f4c1d6e9b0a3f5c27',
    deadline: 1795697294,
  }),
  expiresAt: '2026-11-26T12:48:14.000Z',
};

export const EXAMPLE_INVITATION = {
  id: 'inv_7k2m9q4x1c8v5b3n6z0w2r4t8y',
  inviterAdminId: EXAMPLE_ADMIN_ID,
  displayName: 'Contractor',
  wallet: null,
  permissions: ['files:read'],
  channelIds: [EXAMPLE_CHANNEL_ID],
  state: 'pending' as const,
  createdAt: EXAMPLE_TIME,
  expiresAt: '2026-12-03T12:38:14.441Z',
  acceptedAdminId: null,
};

export const EXAMPLE_ISSUED_INVITATION = {
  ...EXAMPLE_INVITATION,
  token: 'wai_3q1vZb8yK2xQm7fN0pL5sR9tD4wH6jE1cA8gU2oY7iM',
  url: 'http://127.0.0.1:8080/console/invite#token=wai_3q1vZb8yK2xQm7fN0pL5sR9tD4wH6jE1cA8gU2oY7iM',
};

export const EXAMPLE_INVITATION_PAGE = { items: [EXAMPLE_INVITATION], next: null };

export const EXAMPLE_INVITATION_PREVIEW = {
  id: EXAMPLE_INVITATION.id,
  tenant: { id: EXAMPLE_TENANT_ID, name: 'Demo tenant' },
  inviter: { id: EXAMPLE_ADMIN_ID, displayName: 'Demo owner' },
  displayName: EXAMPLE_INVITATION.displayName,
  wallet: null,
  permissions: EXAMPLE_INVITATION.permissions,
  channels: [{ id: EXAMPLE_CHANNEL_ID, name: 'demo' }],
  owner: false as const,
  expiresAt: EXAMPLE_INVITATION.expiresAt,
};

export const EXAMPLE_MANAGED_CHANNEL = { id: EXAMPLE_CHANNEL_ID, name: 'demo', archived: false, createdAt: EXAMPLE_TIME };

export const EXAMPLE_TENANT_AUDIT_PAGE = {
  items: [
    {
      id: 'aud_01m8bxt5590000cc1f6mvkcjqf',
      time: EXAMPLE_TIME,
      adminId: EXAMPLE_ADMIN_ID,
      adminName: 'Demo owner',
      action: 'admin.update',
      result: 'ok',
      code: null,
      folder: null,
      filename: null,
      backupTimestamp: null,
      versionId: null,
      at: null,
      sha256: null,
      operationId: null,
      operation: null,
      channelId: null,
      targetAdminId: SUB_ADMIN_ID,
      change: {
        before: { status: 'ACTIVE', permissions: ['files:read', 'files:write'] },
        after: { status: 'SUSPENDED', permissions: ['files:read', 'files:write'] },
      },
      intents: null,
      operator: null,
      proposalId: null,
    },
  ],
  next: null,
};
