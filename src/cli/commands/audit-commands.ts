import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { AppError } from '../../errors/app-error.ts';
import { tenantNotFound } from '../../errors/common-errors.ts';
import { SERVICE_CHAIN } from '../../model/audit.ts';
import type { MetadataStore } from '../../model/metadata-store.ts';
import { formatRfc3339 } from '../../time/rfc3339.ts';
import type { Command, OptionValues } from '../command.ts';
import { optionalString, UsageError } from '../command.ts';
import { readOptionFile } from '../secret-input.ts';
import { exactText, terminalLines, terminalText } from '../terminal-text.ts';

/** A published head is a line or two of JSON. */
const HEAD_FILE_MAX_BYTES = 64 * 1024;
const HASH = /^[0-9a-f]{64}$/;

/** `{ "seq": N, "hash": "…" }` (GET /api/audit/head's answer, as published), or a bare hash with --head. */
async function publishedHead(values: OptionValues): Promise<{ seq: number; hash: string } | undefined> {
  const file = optionalString(values, 'head-file');
  const hash = optionalString(values, 'head');
  if (file !== undefined && hash !== undefined) throw new UsageError('Give --head or --head-file, not both');
  if (hash !== undefined) {
    const seq = optionalString(values, 'head-seq');
    if (!HASH.test(hash)) throw new UsageError('--head must be 64 lowercase hexadecimal digits (a hash of GET /api/audit/head)');
    if (seq === undefined || !/^\d{1,15}$/.test(seq) || Number(seq) < 1)
      throw new UsageError('--head goes with --head-seq N (the seq it is the hash of, at least 1)');
    return { seq: Number(seq), hash };
  }
  if (optionalString(values, 'head-seq') !== undefined) throw new UsageError('--head-seq goes with --head');
  if (file === undefined) return undefined;
  let head: unknown;
  try {
    head = JSON.parse((await readOptionFile(file, 'head-file', HEAD_FILE_MAX_BYTES)).toString('utf8'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--head-file ${file} is not JSON`);
  }
  const { seq, hash: published } = (head ?? {}) as { seq?: unknown; hash?: unknown };
  if (!Number.isSafeInteger(seq) || (seq as number) < 1 || typeof published !== 'string' || !HASH.test(published)) {
    throw new UsageError(`--head-file ${file} holds no head: { "seq": N, "hash": "<64 hex digits>" }, as GET /api/audit/head answers`);
  }
  return { seq: seq as number, hash: published };
}

export const auditVerifyCommand: Command = {
  words: ['audit', 'verify'],
  summary: "Check an export of a tenant's audit log (GET /api/audit/export) offline: its hash chain, every intent's signatures and quorum",
  modeNote: 'Runs on the file alone: no service, no database, no network (docs/audit-chain.md).',
  positional: 'file',
  options: {
    file: { type: 'string', placeholder: 'FILE', required: true, description: 'The export, JSON Lines (also the word after the command)' },
    'head-file': {
      type: 'string',
      placeholder: 'FILE',
      description: 'A head published earlier, { "seq": N, "hash": "…" } (GET /api/audit/head): the export must reach it unchanged',
    },
    head: { type: 'string', placeholder: 'HASH', description: "A published head's hash (with --head-seq)" },
    'head-seq': { type: 'string', placeholder: 'N', description: 'The seq of the entry --head is the hash of' },
  },
  async run({ values }) {
    const head = await publishedHead(values);
    const file = optionalString(values, 'file')!;
    // Loaded here: viem (signature recovery) is for this command only.
    const { verifyExport } = await import('../../audit-chain/verify-export.ts');
    const input = createReadStream(file);
    const opened = new Promise<void>((resolve, reject) => {
      input.once('open', () => resolve());
      input.once('error', reject);
    });
    try {
      await opened;
    } catch (error) {
      throw new UsageError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    // Line by line: an export of a million entries is never held whole.
    const summary = await verifyExport(createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY }), { head });
    if (!summary.ok) {
      const f = summary.failure!;
      const which = f.seq === null ? `line ${f.line}` : `entry seq ${f.seq}${f.id === null ? '' : ` (${f.id})`}, line ${f.line}`;
      throw new AppError('AUDIT_CHAIN_BROKEN', `The audit export does not verify at ${which}: ${f.reason}`, { ...f });
    }
    const lines = [
      summary.tenantId === SERVICE_CHAIN
        ? terminalText`Verified ${summary.entries} entries of the service-wide chain: the chain is whole.`
        : terminalText`Verified ${summary.entries} entries of tenant ${summary.tenantId ?? '(none)'}: the chain is whole.`,
      terminalText`Head: seq ${summary.head.seq}, hash ${summary.head.hash}${head === undefined ? ' (no published head given: a truncation or a rewrite of the whole chain cannot be told from here)' : ' (reaches the published head)'}`,
      terminalText`Intents: ${summary.intents.entries} entries, ${summary.intents.verifiedSignatures} signatures recovered; ${summary.intents.needChainLookup} contract-wallet approvals need a chain lookup (EIP-1271)${summary.intents.quorumsNeedingChainLookup > 0 ? `, ${summary.intents.quorumsNeedingChainLookup} quorums rest on them` : ''}.`,
    ];
    if (summary.preChain !== null) {
      lines.push(
        terminalText`Entries ${summary.preChain.firstSeq} to ${summary.preChain.lastSeq} were written before the log was chained: the chain vouches for them since ${new Date(summary.preChain.chainedAt).toISOString()} only.`,
      );
    }
    return { json: { ...summary }, text: terminalLines(lines) };
  },
};

/** Locally, which chain: a tenant's (--tenant) or the service-wide one (--service), exactly one. */
const chainOptions = {
  tenant: { type: 'string', placeholder: 'ID', description: "A tenant's chain (t_…); over HTTP, the signed-in owner's", only: 'local' },
  service: {
    type: 'boolean',
    description: "The service-wide chain: the changes that concern no tenant yet (a tenant's creation)",
    only: 'local',
  },
} as const;

async function chainOf(values: OptionValues, store: () => Promise<MetadataStore>): Promise<string> {
  const tenantId = optionalString(values, 'tenant');
  const service = values.service === true;
  if ((tenantId === undefined) === !service) throw new UsageError('Locally, give --tenant ID or --service (exactly one): which chain');
  if (service) return SERVICE_CHAIN;
  if ((await (await store()).getTenant(tenantId!)) === undefined) throw tenantNotFound(tenantId!);
  return tenantId!;
}

function afterOption(values: OptionValues): number | undefined {
  const after = optionalString(values, 'after');
  if (after !== undefined && !/^\d{1,15}$/.test(after))
    throw new UsageError(`--after must be a whole number, a seq (got "${after.slice(0, 40)}")`);
  return after === undefined ? undefined : Number(after);
}

/** A chain's export as JSON Lines on standard output: the file `audit verify` checks. */
const auditExportCommand: Command = {
  words: ['audit', 'export'],
  summary:
    "Print a hash-chained audit log as JSON Lines, for audit verify: over HTTP the tenant's (GET /api/audit/export; an owner), locally a tenant's or the service-wide one",
  options: {
    after: {
      type: 'string',
      placeholder: 'SEQ',
      description: 'Only the entries after this seq (default 0: the whole log, which verify needs)',
    },
    ...chainOptions,
  },
  printsJson: false,
  remote: async ({ values, client }) => {
    const lines = await (await client()).exportTenantAudit({ after: afterOption(values) });
    // Exactly as answered: one canonical JSON entry a line, which is what the hashes cover.
    return { json: {}, text: exactText(lines), exact: true };
  },
  async run({ values, store }) {
    const after = afterOption(values) ?? 0;
    const chain = await chainOf(values, store);
    // Loaded here: the chain's hashing is for this command only.
    const { chainExport } = await import('../../administration/tenant-audit.ts');
    let lines = '';
    for await (const page of chainExport((await store()).files, chain, after)) lines += page;
    return { json: {}, text: exactText(lines), exact: true };
  },
};

/** The chain's head: what to publish where the operator cannot rewrite it. */
const auditHeadCommand: Command = {
  words: ['audit', 'head'],
  summary:
    "An audit chain's head, { seq, hash }, to publish elsewhere and verify against with --head-file: over HTTP the tenant's (GET /api/audit/head; an owner), locally a tenant's or the service-wide one",
  options: chainOptions,
  remote: async ({ client }) => {
    const head = await (await client()).auditHead();
    return { json: { ...head }, text: terminalText`${JSON.stringify(head)}` };
  },
  async run({ values, store }) {
    const stored = await (await store()).files.auditHead(await chainOf(values, store));
    const head = { ...stored, at: stored.at === null ? null : formatRfc3339(stored.at) };
    return { json: { ...head }, text: terminalText`${JSON.stringify(head)}` };
  },
};

export const auditCommands: Command[] = [auditVerifyCommand, auditExportCommand, auditHeadCommand];
