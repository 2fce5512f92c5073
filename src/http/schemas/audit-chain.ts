import { Type } from 'typebox';
import { chainEntry, exportLine, ZERO_HASH } from '../../audit-chain/chain-entry.ts';
import type { AuditEvent } from '../../model/audit.ts';
import { EXAMPLE_ADMIN_ID, EXAMPLE_BACKUP_TIMESTAMP, EXAMPLE_TENANT_ID, EXAMPLE_TIME } from './examples.ts';

/** The audit chain's routes (docs/audit-chain.md): its head, and its export as JSON Lines. */

/** The media type of an export: JSON Lines, one entry per line, as NDJSON tools name it. */
export const EXPORT_MEDIA_TYPE = 'application/x-ndjson';

export const AuditExportQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      default: 0,
      description: "Start after this seq (the last line's seq of an earlier export); 0, the default, from the chain's first entry",
    }),
  ),
});

const HASH = { pattern: '^[0-9a-f]{64}$' };

export const AuditHeadSchema = Type.Object({
  tenantId: Type.String(),
  seq: Type.Integer({ minimum: 0, description: "The last entry's seq; 0 while the log is empty" }),
  hash: Type.String({ ...HASH, description: "The last entry's hash; 64 zeros while the log is empty" }),
  at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the last entry was appended; null while the log is empty',
  }),
});

/** Two entries of a real chain, hashed as the service hashes them: an example a reader may verify. */
const exampleEvent = (id: string, createdAt: number, over: Partial<AuditEvent>): AuditEvent => ({
  id,
  tenantId: EXAMPLE_TENANT_ID,
  channelId: 'chn_2b5gq4y7mfz6tdvj9x0c8rnkhs',
  adminId: EXAMPLE_ADMIN_ID,
  action: 'upload',
  folder: 'reports',
  filename: 'prices.csv',
  backupTimestamp: null,
  versionId: null,
  at: null,
  result: 'ok',
  code: null,
  sha256: 'a3f1c0b2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f',
  createdAt,
  operationId: null,
  operation: null,
  targetAdminId: null,
  change: null,
  intents: null,
  operator: null,
  proposalId: null,
  ...over,
});
const FIRST = chainEntry(exampleEvent('aud_01m8bxt5590000cc1f6mvkcjqf', Date.parse(EXAMPLE_TIME), {}), 1, ZERO_HASH);
const SECOND = chainEntry(
  exampleEvent('aud_01m8bxv0a20000dd2g7nwmdkrg', Date.parse(EXAMPLE_TIME) + 60_000, {
    action: 'backup',
    folder: null,
    filename: null,
    sha256: null,
    backupTimestamp: EXAMPLE_BACKUP_TIMESTAMP,
  }),
  2,
  FIRST.hash,
);

export const EXAMPLE_AUDIT_EXPORT = exportLine(FIRST) + exportLine(SECOND);

export const EXAMPLE_AUDIT_HEAD = {
  tenantId: EXAMPLE_TENANT_ID,
  seq: SECOND.seq,
  hash: SECOND.hash,
  at: new Date(SECOND.createdAt).toISOString(),
};

export const AUDIT_EXPORT_RESPONSE = {
  description:
    'The chain from the cursor on, oldest first: one entry per line (its canonical JSON), each with its seq, prevHash and hash. Check it with `wallet-admin audit verify FILE`',
  content: { [EXPORT_MEDIA_TYPE]: { schema: Type.String({ description: 'JSON Lines' }), example: EXAMPLE_AUDIT_EXPORT } },
};
