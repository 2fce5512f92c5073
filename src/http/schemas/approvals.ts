import { Type } from 'typebox';
import { HELD_OPERATIONS, MAX_APPROVALS, PROPOSAL_STATUSES } from '../../model/approvals.ts';
import { ALL_PERMISSIONS } from '../../model/permissions.ts';
import { PageQuery } from './files.ts';

/** The shapes of policies, proposals and signed intents (docs/approvals.md). */

export const PolicyRuleSchema = Type.Object(
  {
    operation: Type.Enum([...HELD_OPERATIONS], { description: 'The operation the rule holds' }),
    approvals: Type.Integer({ minimum: 1, maximum: MAX_APPROVALS, description: 'How many distinct admins must sign an intent' }),
    permission: Type.Enum([...ALL_PERMISSIONS], {
      description: 'The permission an approver holds (for a channel operation, on the channel)',
    }),
  },
  { additionalProperties: false },
);

export const PolicyBody = Type.Object(
  {
    // Required, checked once the caller is known (a channel one may not see answers 404 whatever the body).
    rules: Type.Optional(
      Type.Array(PolicyRuleSchema, {
        maxItems: HELD_OPERATIONS.length,
        description: 'The rules, one per operation (required; [] for none)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PolicySchema = Type.Object({
  tenantId: Type.String(),
  channelId: Type.Union([Type.String(), Type.Null()], { description: "Null: the tenant's own policy" }),
  rules: Type.Array(PolicyRuleSchema),
  /** A channel's policy shows the tenant's rules too: the stricter of the two applies. */
  tenantRules: Type.Optional(Type.Array(PolicyRuleSchema, { description: "A channel's policy: the tenant's rules, which apply too" })),
  revision: Type.Integer({ description: 'Raised by every change; the ETag is "p{revision}"' }),
  updatedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When it was last set; absent for a policy never set' })),
  updatedBy: Type.Optional(Type.String({ description: 'Who last set it' })),
});

export const ApprovalSchema = Type.Object({
  adminId: Type.String(),
  wallet: Type.String(),
  signature: Type.String(),
  kind: Type.Enum(['eoa', 'contract']),
  approvedAt: Type.String({ format: 'date-time' }),
  counts: Type.Boolean({ description: 'Whether it counts now (its admin still active and holding the permission)' }),
});

export const ProposalSchema = Type.Object({
  id: Type.String(),
  tenantId: Type.String(),
  channelId: Type.Union([Type.String(), Type.Null()]),
  operation: Type.Enum([...HELD_OPERATIONS]),
  status: Type.Enum([...PROPOSAL_STATUSES]),
  proposedBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  required: Type.Integer(),
  permission: Type.String(),
  plan: Type.Record(Type.String(), Type.Unknown(), { description: 'What the operation will do' }),
  planEtag: Type.String(),
  summary: Type.String(),
  typedData: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The EIP-712 typed data to sign, exactly as given (eth_signTypedData_v4)',
  }),
  approvals: Type.Array(ApprovalSchema),
  approvalsCounted: Type.Integer(),
  eligibleAdminIds: Type.Array(Type.String()),
  adminNames: Type.Record(Type.String(), Type.String(), {
    description: 'The display names of the admins it names (proposer, approvers, those who may approve), by admin id',
  }),
  reason: Type.Union([Type.String(), Type.Null()]),
  result: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  finishedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When it left pending; absent while pending' })),
});

export const ProposalParams = Type.Object({
  proposalId: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'A proposal id (prp_…)',
    examples: ['prp_0123456789abcdefghjkmnpqrs'],
  }),
});

export const ProposalListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Type.Enum([...PROPOSAL_STATUSES], { description: 'Only proposals in this state' })),
});

export const ApprovalBody = Type.Object(
  {
    wallet: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'The wallet that signed the typed data' }),
    signature: Type.String({
      pattern: '^0x[0-9a-fA-F]*$',
      maxLength: 20_000,
      description: "The wallet's eth_signTypedData_v4 signature of the proposal's typedData",
    }),
  },
  { additionalProperties: false },
);
