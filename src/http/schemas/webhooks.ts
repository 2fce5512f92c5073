import { Type } from 'typebox';
import { AUDIT_RESULTS } from '../../model/audit.ts';
import { DELIVERY_STATUSES } from '../../model/events.ts';
import { PageQuery } from './files.ts';

/** The shapes of webhooks and their delivery logs (docs/events.md). */

const result = Type.Enum([...AUDIT_RESULTS]);
const types = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 100,
  description: 'Event types (audit actions: upload, backup.delete, admin.update, …) or families (backup.*); none: every type',
});
const channels = Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
  maxItems: 100,
  description: "Only these channels' events (ids chn_… or names); none: every channel and the tenant's own events",
});
const folders = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
  maxItems: 100,
  description: 'Only file events in these folders; none: every folder',
});
const results = Type.Array(result, {
  minItems: 1,
  maxItems: 3,
  description: 'The outcomes to carry: ok by default; refused and failed for a security receiver',
});
const url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https:// only, to a public address (http:// and private addresses only for hosts the operator lists in OUTBOUND_ALLOW)',
});

export const WebhookParams = Type.Object({
  webhookId: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'A webhook id (whk_…)',
    examples: ['whk_7m2k9d4q1x8c5v3b6n0p2r4t6w'],
  }),
});

export const DeliveryParams = Type.Object({
  ...WebhookParams.properties,
  deliveryId: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'A delivery id (dlv_…)',
    examples: ['dlv_01jgw2c0v4x9ag3k2m8qz5rt1e'],
  }),
});

export const NewWebhookBody = Type.Object(
  {
    url,
    types: Type.Optional(types),
    channels: Type.Optional(channels),
    folders: Type.Optional(folders),
    results: Type.Optional(results),
    from: Type.Optional(
      Type.Enum(['head', 'start'], { description: 'head (default): the events after its creation; start: the whole chain first' }),
    ),
  },
  { additionalProperties: false },
);

export const WebhookChangeBody = Type.Object(
  {
    url: Type.Optional(url),
    types: Type.Optional(types),
    channels: Type.Optional(channels),
    folders: Type.Optional(folders),
    results: Type.Optional(results),
    paused: Type.Optional(
      Type.Boolean({ description: 'true: nothing is sent (events wait); false: delivery goes on from where it stopped' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

const status = Type.Enum([...DELIVERY_STATUSES]);
const time = Type.String({ format: 'date-time' });
const nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const WebhookSchema = Type.Object({
  id: Type.String({ pattern: '^whk_' }),
  url: Type.String({ description: 'Its user info and query values shown as ***' }),
  types: Type.Array(Type.String()),
  channels: Type.Array(Type.String()),
  folders: Type.Array(Type.String()),
  results: Type.Array(result),
  paused: Type.Boolean(),
  state: Type.Enum(['active', 'paused', 'stopped'], {
    description: 'stopped: its creator is suspended, removed or without audit:read, and it carries nothing until that changes',
  }),
  stoppedReason: nullable(Type.String()),
  createdBy: Type.String(),
  createdAt: time,
  updatedAt: time,
  secretRotated: nullable(Type.String({ format: 'date-time', description: 'When the secret was last rotated; null: never' })),
  lowWaterSeq: Type.Integer({ description: "Every event of the tenant's chain at or below it was delivered or dead-lettered" }),
  headSeq: Type.Integer({ description: "The tenant chain's head now" }),
  lastDelivery: Type.Union([Type.Object({ at: time, status, httpStatus: nullable(Type.Integer()) }), Type.Null()]),
});

export const CreatedWebhookSchema = Type.Object({
  ...WebhookSchema.properties,
  secret: Type.String({ pattern: '^whsec_', description: 'The signing secret (Standard Webhooks): shown this once' }),
});

export const RotatedSecretSchema = Type.Object({
  id: Type.String(),
  secret: Type.String({ pattern: '^whsec_', description: 'The new signing secret: shown this once' }),
  previousSecretValidUntil: Type.String({ format: 'date-time', description: 'Until then every delivery is signed with both secrets' }),
});

export const WebhookTestSchema = Type.Object({
  delivered: Type.Boolean(),
  status: nullable(Type.Integer()),
  latencyMs: Type.Integer(),
  error: nullable(Type.String()),
  excerpt: nullable(Type.String({ description: "The start of the receiver's answer" })),
});

export const DeliverySchema = Type.Object({
  id: Type.String({ pattern: '^dlv_' }),
  eventId: Type.String({ description: "The event's id: its audit entry's hash (consumers deduplicate by it)" }),
  type: Type.String(),
  seq: Type.Integer(),
  channelId: nullable(Type.String()),
  status,
  attempts: Type.Integer(),
  httpStatus: nullable(Type.Integer()),
  error: nullable(Type.String({ description: 'An excerpt of the last failure' })),
  latencyMs: nullable(Type.Integer()),
  createdAt: time,
  updatedAt: time,
  nextAttempt: nullable(Type.String({ format: 'date-time', description: 'When a retrying delivery is tried next' })),
});

export const DeliveryQuery = Type.Object(
  {
    ...PageQuery.properties,
    status: Type.Optional(Type.Enum([...DELIVERY_STATUSES], { description: 'Only deliveries in this state (dead: the dead-lettered)' })),
  },
  { additionalProperties: false },
);

const EXAMPLE_TIME = '2026-12-06T12:00:00.000Z';

export const EXAMPLE_WEBHOOK = {
  id: 'whk_7m2k9d4q1x8c5v3b6n0p2r4t6w',
  url: 'https://hooks.example.com/wallet-admin?token=***',
  types: ['upload', 'restore', 'backup.*'],
  channels: [],
  folders: [],
  results: ['ok' as const],
  paused: false,
  state: 'active' as const,
  stoppedReason: null,
  createdBy: 'adm_0f3k8m2q5x7c9v1b4n6p8r0t2w',
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
  secretRotated: null,
  lowWaterSeq: 41,
  headSeq: 42,
  lastDelivery: { at: EXAMPLE_TIME, status: 'delivered' as const, httpStatus: 204 },
};

export const EXAMPLE_DELIVERY = {
  id: 'dlv_01jgw2c0v4x9ag3k2m8qz5rt1e',
  eventId: '5f0c2b7e9a1d4c3b8e6f0a2d4c6b8e0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b',
  type: 'restore',
  seq: 42,
  channelId: 'chn_2b8k4m6q0x2c4v6b8n0p2r4t6w',
  status: 'delivered' as const,
  attempts: 1,
  httpStatus: 204,
  error: null,
  latencyMs: 12,
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
  nextAttempt: null,
};

export const EXAMPLE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
