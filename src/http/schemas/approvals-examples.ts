import type { Static } from 'typebox';
import { intentTypedData } from '../../approvals/intent-typed-data.ts';
import type { HeldOperation } from '../../model/approvals.ts';
import { jsonAnswer } from './answer.ts';
import { type PolicySchema, ProposalSchema } from './approvals.ts';

/** Real-looking examples of the approval shapes, for the API reference (typed by the schemas, so they cannot drift). */

const TENANT = 't_3k7q9x2m4n6p8r1s5v0w2y4z6b';
const CHANNEL = 'chn_8f2k4m6p9r1t3v5x7z0b2d4g6j';
const OWNER = 'adm_5q7s9u1w3y5a7c9e1g3j5l7n9p';
const PROPOSAL = 'prp_0123456789abcdefghjkmnpqrs';
const ETAG = '"6f1c3b2a9d8e7f60514233241506978a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e"';
const SUMMARY =
  'Restore the whole channel main from backup 20261120_120000, deleting the live files the backup lacks: 2 replaced, 1 created, 1 deleted';
const PLAN = {
  folder: null,
  backupTimestamp: '20261120_120000',
  at: null,
  delete: true,
  changes: [
    { folder: 'docs', filename: 'guide.pdf', action: 'replace' },
    { folder: 'docs', filename: 'intro.txt', action: 'replace' },
    { folder: 'images', filename: 'logo.png', action: 'create' },
    { folder: 'images', filename: 'draft.png', action: 'delete' },
  ],
  unchanged: 12,
};

export const EXAMPLE_POLICY: Static<typeof PolicySchema> = {
  tenantId: TENANT,
  channelId: null,
  rules: [
    { operation: 'channel.restore', approvals: 2, permission: 'files:restore' },
    { operation: 'backup.delete', approvals: 2, permission: 'backups:create' },
  ],
  revision: 3,
  updatedAt: '2026-11-20T09:12:00.000Z',
  updatedBy: OWNER,
};

export const EXAMPLE_PROPOSAL: Static<typeof ProposalSchema> = {
  id: PROPOSAL,
  tenantId: TENANT,
  channelId: CHANNEL,
  operation: 'channel.restore',
  status: 'pending',
  proposedBy: OWNER,
  createdAt: '2026-11-26T10:00:00.000Z',
  expiresAt: '2026-11-29T10:00:00.000Z',
  required: 2,
  permission: 'files:restore',
  plan: PLAN,
  planEtag: ETAG,
  summary: SUMMARY,
  typedData: intentTypedData(1, {
    service: 'https://files.example.com',
    proposal: PROPOSAL,
    operation: 'channel.restore',
    tenant: TENANT,
    channel: CHANNEL,
    scope: 'channel',
    source: 'backup:20261120_120000',
    delete: true,
    target: '',
    details: SUMMARY,
    planEtag: ETAG,
    admin: OWNER,
    nonce: '0x9c2f4e6a8b0d1f3e5a7c9b1d3f5e7a9c0b2d4f6e8a1c3e5b7d9f0a2c4e6b8d0f',
    deadline: 1795946400,
  }) as unknown as Record<string, unknown>,
  approvals: [
    {
      adminId: OWNER,
      wallet: '0x8ba1f109551bd432803012645ac136ddd64dba72',
      signature: `0x${'4f'.repeat(64)}1b`,
      kind: 'eoa',
      approvedAt: '2026-11-26T10:00:05.000Z',
      counts: true,
    },
  ],
  approvalsCounted: 1,
  eligibleAdminIds: [OWNER, 'adm_2b4d6f8h0k2m4p6r8t0v2x4z6a', 'adm_7c9e1g3j5l7n9q1s3u5w7y9a1c'],
  adminNames: { [OWNER]: 'Ada Owner', adm_2b4d6f8h0k2m4p6r8t0v2x4z6a: 'Sam Second', adm_7c9e1g3j5l7n9q1s3u5w7y9a1c: 'Tess Third' },
  reason: null,
  result: null,
};

/** The 202 of a request a policy may hold: nothing changed yet, and the proposal that will do it. */
export function heldAnswer(operation: HeldOperation) {
  return jsonAnswer(
    ProposalSchema,
    'Held by a policy (docs/approvals.md): nothing changed; the proposal runs once enough admins sign its intent',
    { ...EXAMPLE_PROPOSAL, operation },
  );
}
