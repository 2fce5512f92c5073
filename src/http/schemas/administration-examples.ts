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
  message:
    '127.0.0.1:8080 wants you to sign in with your Ethereum account:\n0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC\n\n' +
    `Add this wallet to the admin ${SUB_ADMIN_ID} of tenant ${EXAMPLE_TENANT_ID}. Once added, it signs in as that admin, ` +
    'with everything that admin may do. Sign only if you asked for this.\n\nURI: http://127.0.0.1:8080\nVersion: 1\nChain ID: 1\n' +
    'Nonce: 5f0c2b8e91d4a7c3e6b0f1a2\nIssued At: 2026-11-26T12:38:14.441Z\nExpiration Time: 2026-11-26T12:48:14.441Z\n' +
    `Resources:\n- urn:wallet-admin:add-wallet:${SUB_ADMIN_ID}`,
  expiresAt: '2026-11-26T12:48:14.441Z',
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
    },
  ],
  next: null,
};
