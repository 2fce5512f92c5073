import { Type } from 'typebox';

/** The shapes of a tenant's own off-site target (docs/offsite.md, "A tenant's own copy"). */

export const TenantOffsiteBody = Type.Object(
  {
    url: Type.String({ minLength: 6, maxLength: 1100, description: 'The bucket and prefix the copy goes to: s3://bucket/prefix' }),
    endpoint: Type.Optional(
      Type.String({
        maxLength: 500,
        description:
          "An S3-compatible store's URL (https://host[:port]); unset: AWS S3 in `region`. A public address only, but for hosts the operator lists in OUTBOUND_ALLOW",
      }),
    ),
    region: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: "The bucket's region (default us-east-1)" })),
    forcePathStyle: Type.Optional(
      Type.Boolean({ description: 'Path-style requests (https://host/bucket/key), as MinIO and most S3-compatible stores want' }),
    ),
    accessKeyId: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The bucket key's id: it needs to write, read and list, and should not delete",
    }),
    secretAccessKey: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'Its secret: kept sealed under SECRETS_KEY, never shown again, never in a log or the audit log',
    }),
    recipients: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      minItems: 1,
      maxItems: 20,
      description: "The tenant's age recipients (age1…): the copy is encrypted to them, and only their identities read it",
    }),
  },
  { additionalProperties: false },
);

const time = Type.String({ format: 'date-time' });
const text = Type.Union([Type.String(), Type.Null()]);

export const TenantOffsiteSchema = Type.Object({
  tenantId: Type.String(),
  url: Type.String(),
  endpoint: text,
  region: Type.String(),
  forcePathStyle: Type.Boolean(),
  accessKeyId: Type.String(),
  recipients: Type.Array(Type.String()),
  setBy: Type.String({ description: 'The admin who set it last' }),
  revision: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  status: Type.Object({
    state: Type.Enum(['pending', 'ok', 'failing'], {
      description: 'pending: nothing shipped yet; failing: the last round failed (lastError)',
    }),
    lagSeconds: Type.Number({ description: 'Seconds since the oldest change the copy does not hold yet (0: none)' }),
    changesPending: Type.Integer({ description: 'Changes (audit entries) the copy does not hold yet' }),
    targetId: text,
    generation: text,
    segment: Type.Union([Type.Integer(), Type.Null()]),
    lastShipped: Type.Union([time, Type.Null()], { description: 'When the last segment reached the target; null: none yet' }),
    bytesShipped: Type.Integer(),
    objectsShipped: Type.Integer(),
    lastError: Type.Union([Type.Object({ message: Type.String(), at: time }), Type.Null()], {
      description: "The last round's failure, until a round succeeds",
    }),
    lastCheck: Type.Union(
      [Type.Object({ ok: Type.Boolean(), result: Type.String({ description: '"ok: …" or "failed: …"' }), at: time }), Type.Null()],
      { description: 'The last test of the target (POST /api/offsite/test)' },
    ),
    head: Type.Union([
      Type.Object({ target: Type.String(), generation: Type.String(), segment: Type.Integer(), hash: Type.String() }),
      Type.Null(),
    ]),
  }),
});

export const TargetCheckSchema = Type.Object({
  ok: Type.Boolean(),
  result: Type.String({ description: '"ok: …" or "failed: …", saying what was reached or what failed' }),
  checkedAt: Type.String({ format: 'date-time' }),
});

export const EXAMPLE_TENANT_OFFSITE = {
  tenantId: 't_4f9c2a7e1b3d5c8e0a6b2d4f',
  url: 's3://acme-copy/wallet-admin',
  endpoint: 'https://s3.eu-central-1.wasabisys.com',
  region: 'eu-central-1',
  forcePathStyle: false,
  accessKeyId: 'AKIAEXAMPLE7Q2K',
  recipients: ['age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p'],
  setBy: 'adm_2b7e9c4a1d3f5e8b0c6a2d4e',
  revision: 1,
  createdAt: '2026-12-06T10:00:00.000Z',
  updatedAt: '2026-12-06T10:00:00.000Z',
  status: {
    state: 'ok' as const,
    lagSeconds: 0,
    changesPending: 0,
    targetId: 't-a02b175d11bebeffaba636c4',
    generation: 'g20261206T100005Z-b351474c',
    segment: 12,
    lastShipped: '2026-12-06T11:42:07.000Z',
    bytesShipped: 52_428_800,
    objectsShipped: 318,
    lastError: null,
    lastCheck: { ok: true, result: 'ok: reached s3://acme-copy/wallet-admin in 84 ms; 13 segments there', at: '2026-12-06T11:40:00.000Z' },
    head: { target: 't-a02b175d11bebeffaba636c4', generation: 'g20261206T100005Z-b351474c', segment: 12, hash: 'ce5db9ec…' },
  },
};
