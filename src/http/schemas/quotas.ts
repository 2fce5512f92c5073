import { Type } from 'typebox';
import { EXAMPLE_CHANNEL_ID, EXAMPLE_TENANT_ID } from './examples.ts';

const Limit = (what: string) =>
  Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], {
    description: `The most ${what} the scope may hold, live files and kept versions together; null: no limit`,
  });

export const QuotaLimitsSchema = Type.Object({ maxBytes: Limit('bytes'), maxFiles: Limit('files (records)') });

/** PUT /api/channels/{channelRef}/quota: the whole quota, each limit a number, or null or left out (none). */
export const ChannelQuotaBody = Type.Object(
  { maxBytes: Type.Optional(Limit('bytes')), maxFiles: Type.Optional(Limit('files (records)')) },
  { additionalProperties: false },
);

const Counts = Type.Object({ files: Type.Integer({ minimum: 0 }), bytes: Type.Integer({ minimum: 0 }) });

const UsageParts = {
  usage: Type.Object(
    { files: Type.Integer({ minimum: 0 }), bytes: Type.Integer({ minimum: 0 }), live: Counts, kept: Counts },
    {
      description:
        'Every record once: the live files, and the versions kept (a locked backup’s included), whatever the store shares between them',
    },
  ),
  quota: QuotaLimitsSchema,
  left: Type.Object(
    {
      bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
      files: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    },
    { description: 'What uploads may still add under this quota (null: no limit); never below 0' },
  ),
};

export const ChannelQuotaSchema = Type.Object({
  channelId: Type.String(),
  maxBytes: Limit('bytes'),
  maxFiles: Limit('files (records)'),
  tenant: Type.Object(
    { maxBytes: Limit('bytes'), maxFiles: Limit('files (records)') },
    { description: "The tenant's quota, which the channel's stays within" },
  ),
});

export const ChannelUsageSchema = Type.Object({ channelId: Type.String(), ...UsageParts, tenantQuota: QuotaLimitsSchema });

export const TenantUsageSchema = Type.Object({
  tenantId: Type.String(),
  ...UsageParts,
  channels: Type.Array(Type.Object({ channelId: Type.String(), ...UsageParts }), {
    description: 'Each channel the caller reaches (an owner: every channel of the tenant), with nothing used for one never written',
  }),
});

const EXAMPLE_USAGE = {
  usage: { files: 14, bytes: 52_428_800, live: { files: 9, bytes: 31_457_280 }, kept: { files: 5, bytes: 20_971_520 } },
  quota: { maxBytes: 1_073_741_824, maxFiles: 10_000 },
  left: { bytes: 1_021_313_024, files: 9_986 },
};

export const EXAMPLE_CHANNEL_QUOTA = {
  channelId: EXAMPLE_CHANNEL_ID,
  maxBytes: 1_073_741_824,
  maxFiles: 10_000,
  tenant: { maxBytes: 10_737_418_240, maxFiles: null },
};
export const EXAMPLE_CHANNEL_USAGE = { channelId: EXAMPLE_CHANNEL_ID, ...EXAMPLE_USAGE, tenantQuota: EXAMPLE_CHANNEL_QUOTA.tenant };
export const EXAMPLE_TENANT_USAGE = {
  tenantId: EXAMPLE_TENANT_ID,
  ...EXAMPLE_USAGE,
  quota: EXAMPLE_CHANNEL_QUOTA.tenant,
  left: { bytes: 10_685_989_440, files: null },
  channels: [{ channelId: EXAMPLE_CHANNEL_ID, ...EXAMPLE_USAGE }],
};
