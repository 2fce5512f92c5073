import path from 'node:path';
import { parseIdentityFile } from '../../age/age-keys.ts';
import type { Config, StorageConfig } from '../../config/config.ts';
import { EnvReader } from '../../config/env-readers.ts';
import { readOffsiteS3 } from '../../config/offsite-config.ts';
import { parseOffsiteUrl } from '../../config/offsite-url.ts';
import { AppError } from '../../errors/app-error.ts';
import { type CopyHead, parseHead, readCopy } from '../../offsite/copy-reader.ts';
import { offsiteStatus } from '../../offsite/offsite-status.ts';
import type { OffsiteTarget } from '../../offsite/target/offsite-target.ts';
import { openOffsiteTarget } from '../../offsite/target/open-offsite-target.ts';
import { formatRfc3339 } from '../../time/rfc3339.ts';
import type { Command, OptionValues } from '../command.ts';
import { optionalString, UsageError } from '../command.ts';
import { instantOption } from '../option-checks.ts';
import { readOptionFile } from '../secret-input.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';

const IDENTITY_MAX_BYTES = 64 * 1024;

const fromOption = {
  type: 'string',
  placeholder: 'URL',
  description: 'The copy: file:///path or s3://bucket/prefix (default OFFSITE_URL); an s3 one with the OFFSITE_S3_* settings',
} as const;
const identityOption = {
  type: 'string',
  placeholder: 'FILE',
  required: true,
  description: 'An age identity file (age-keygen) whose recipient is among OFFSITE_RECIPIENTS',
} as const;
const headFileOption = {
  type: 'string',
  placeholder: 'FILE',
  description: 'The head `offsite status --json` printed, published earlier: the copy must reach it unchanged',
} as const;

/** The target --from (or OFFSITE_URL) names. */
async function targetOf(values: OptionValues, config: Config): Promise<OffsiteTarget> {
  const url = optionalString(values, 'from');
  if (url === undefined) {
    if (config.offsite === undefined) throw new UsageError('Give --from URL (file:///path or s3://bucket/prefix), or set OFFSITE_URL');
    return openOffsiteTarget(config.offsite.target, config.offsite.s3 && { ...config.offsite.s3, lockDays: 0 });
  }
  let parsed: ReturnType<typeof parseOffsiteUrl>;
  try {
    parsed = parseOffsiteUrl(url);
  } catch (error) {
    throw new UsageError(`--from: ${(error as Error).message.replace(/^OFFSITE_URL /, '')}`);
  }
  if (parsed.kind === 'file') return openOffsiteTarget(parsed);
  const read = new EnvReader(process.env);
  const s3 = readOffsiteS3(read);
  if (s3 === undefined || read.problems.length > 0) throw new UsageError(read.problems.join('; '));
  return openOffsiteTarget(parsed, { ...s3, lockDays: 0 });
}

async function identitiesOf(values: OptionValues): Promise<Uint8Array[]> {
  const file = optionalString(values, 'identity')!;
  try {
    return parseIdentityFile((await readOptionFile(file, 'identity', IDENTITY_MAX_BYTES)).toString('utf8'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--identity ${file}: ${(error as Error).message}`);
  }
}

async function headOf(values: OptionValues): Promise<CopyHead | undefined> {
  const file = optionalString(values, 'head-file');
  if (file === undefined) return undefined;
  try {
    return parseHead((await readOptionFile(file, 'head-file', 64 * 1024)).toString('utf8'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--head-file ${file}: ${(error as Error).message}`);
  }
}

const offsiteStatusCommand: Command = {
  words: ['offsite', 'status'],
  summary: 'Where the off-site copy stands: lag, changes pending, bytes shipped, last error, last check and drill, and the head to publish',
  options: {},
  async run({ store }) {
    const status = await offsiteStatus(await store());
    const lines = [
      status.target === null
        ? terminalText`No off-site copy: OFFSITE_URL was never set for this database.`
        : terminalText`Target ${status.target}${status.capturing ? '' : ' (capture is off: the service runs without OFFSITE_URL)'}`,
    ];
    if (status.target !== null) {
      lines.push(
        terminalText`Lag ${status.lagSeconds.toFixed(1)} s, ${status.changesPending} changes pending, ${status.bytesShipped} bytes in ${status.objectsShipped} objects shipped`,
        terminalText`Generation ${status.generation ?? '(none yet)'}, segment ${status.segment ?? '(snapshot not shipped yet)'}; oldest kept snapshot ${status.oldestSnapshot ?? '(none)'}`,
        terminalText`Last error: ${status.lastError === null ? 'none' : `${status.lastError.at} ${status.lastError.message}`}`,
        terminalText`Last check: ${status.lastCheck === null ? 'never' : `${status.lastCheck.at} ${status.lastCheck.result}`}`,
        terminalText`Last drill: ${status.lastDrill === null ? 'never' : `${status.lastDrill.at} ${status.lastDrill.result}`}`,
      );
      if (status.head) lines.push(terminalText`Head to publish: ${JSON.stringify(status.head)}`);
    }
    return { json: { ...status }, text: terminalLines(lines) };
  },
};

const offsiteVerifyCommand: Command = {
  words: ['offsite', 'verify'],
  summary: "Check an off-site copy offline with the operator's identity: every segment's chain, every blob's sha256, nothing missing",
  modeNote: 'Runs on the copy and the identity alone: no service, no database (docs/offsite.md).',
  options: { from: fromOption, identity: identityOption, 'head-file': headFileOption },
  async run({ values, config }) {
    const target = await targetOf(values, config);
    try {
      const report = await readCopy(target, { identities: await identitiesOf(values), head: await headOf(values), checkBlobs: true });
      if (report.failure) throw new AppError('OFFSITE_COPY_BROKEN', `The off-site copy does not verify: ${report.failure}`);
      const segments = report.generations.reduce((n, g) => n + g.segments.length, 0);
      const lines = [
        terminalText`Verified ${report.generations.length} generations, ${segments} segments and ${report.blobsChecked} blobs of ${target.description}.`,
        terminalText`Head: ${JSON.stringify(report.head)}`,
        ...report.notes.map((note) => terminalText`Note: ${note}`),
      ];
      return {
        json: {
          ok: true,
          generations: report.generations.length,
          segments,
          blobs: report.blobsChecked,
          head: report.head,
          notes: report.notes,
        },
        text: terminalLines(lines),
      };
    } finally {
      await target.close();
    }
  },
};

const offsiteRestoreCommand: Command = {
  words: ['offsite', 'restore'],
  summary:
    'Build a working service from an off-site copy and the identity alone, onto either engine and either storage, at the latest state or an earlier instant',
  modeNote:
    'Writes only into an empty destination: DATA_DIR (SQLite and disk) or a database and bucket that hold nothing (docs/offsite.md).',
  options: {
    from: fromOption,
    identity: identityOption,
    'head-file': headFileOption,
    'data-dir': {
      type: 'string',
      placeholder: 'DIR',
      description: 'The new DATA_DIR (SQLite metadata and disk storage unless --database-url / --storage s3)',
    },
    'database-url': { type: 'string', placeholder: 'URL', description: 'postgres://… an empty database to rebuild the metadata into' },
    storage: {
      type: 'string',
      placeholder: 'disk|s3',
      description: 'Where the files go: disk (DATA_DIR/storage, the default) or s3 (S3_BUCKET and the S3_* settings)',
    },
    at: {
      type: 'string',
      placeholder: 'INSTANT',
      description: 'The state as of this RFC 3339 instant (default: the latest the copy holds)',
    },
    tenant: { type: 'string', placeholder: 'ID', description: "Only this tenant's records and files" },
  },
  async run({ values, config }) {
    const dataDir = optionalString(values, 'data-dir');
    const databaseUrl = optionalString(values, 'database-url');
    if (dataDir === undefined && databaseUrl === undefined)
      throw new UsageError('Give --data-dir DIR or --database-url URL: where to rebuild');
    if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl))
      throw new UsageError('--database-url must be a postgres:// URL');
    const storageKind = optionalString(values, 'storage') ?? 'disk';
    if (storageKind !== 'disk' && storageKind !== 's3') throw new UsageError('--storage must be disk or s3');
    if (storageKind === 's3' && config.storage.s3 === undefined)
      throw new UsageError('--storage s3 needs STORAGE=s3 and S3_BUCKET (and the S3_* settings) for the new bucket');
    if (storageKind === 'disk' && dataDir === undefined)
      throw new UsageError('--storage disk (the default) needs --data-dir DIR for the files');
    const storage: StorageConfig = storageKind === 's3' ? config.storage : { kind: 'disk', s3: undefined };
    const at = instantOption(values, 'at');
    const { rebuildFromCopy, RebuildRefused, DestinationNotEmpty } = await import('../../offsite/rebuild.ts');
    const target = await targetOf(values, config);
    try {
      const summary = await rebuildFromCopy({
        target,
        identities: await identitiesOf(values),
        head: await headOf(values),
        destination: { databaseUrl, dataDir: path.resolve(dataDir ?? config.dataDir), storage },
        at: at === undefined ? undefined : Date.parse(at),
        tenant: optionalString(values, 'tenant'),
        operator: config.operatorLabel,
        logger: {
          warn: (details, message) => console.error(message, details),
          error: (details, message) => console.error(message, details),
        },
      });
      const lines = [
        terminalText`Rebuilt ${summary.rows} records and ${summary.blobs} files (${summary.bytes} bytes) from generation ${summary.generation}, segment ${summary.segment}${summary.lastChange ? `, up to the change of ${formatRfc3339(summary.lastChange.at)}` : ''}.`,
        terminalText`Every admin is signed out as of the rebuild; the service makes new secrets at its first start.`,
        terminalText`Start it with the same settings: ${databaseUrl ? `DATABASE_URL=${'<the URL>'} ` : ''}${dataDir ? `DATA_DIR=${dataDir} ` : ''}npm start`,
      ];
      return { json: { ...summary }, text: terminalLines(lines) };
    } catch (error) {
      if (error instanceof DestinationNotEmpty) throw new AppError('OFFSITE_DESTINATION_NOT_EMPTY', error.message);
      if (error instanceof RebuildRefused) throw new AppError('OFFSITE_COPY_BROKEN', error.message);
      throw error;
    } finally {
      await target.close();
    }
  },
};

const STDERR_LOGGER = {
  warn: (details: object, message: string) => console.error(message, details),
  error: (details: object, message: string) => console.error(message, details),
};

const offsiteDrillCommand: Command = {
  words: ['offsite', 'drill'],
  summary:
    'Rebuild the latest off-site copy into a scratch directory and compare it with the live records and bytes; the result goes to offsite status and the service-wide audit chain',
  modeNote: 'Runs where the identity is kept, with access to the live database (DATA_DIR / DATABASE_URL) and the copy (docs/offsite.md).',
  options: {
    from: fromOption,
    identity: identityOption,
    sample: {
      type: 'string',
      placeholder: 'N',
      description: "Check only N blobs' bytes, picked at random (default: every blob); every record is compared",
    },
  },
  async run({ values, config, store }) {
    const sample = optionalString(values, 'sample');
    if (sample !== undefined && !/^[1-9]\d{0,8}$/.test(sample))
      throw new UsageError('--sample must be a whole number of blobs, at least 1');
    const { drill } = await import('../../offsite/drill.ts');
    const target = await targetOf(values, config);
    try {
      const result = await drill({
        store: await store(),
        target,
        identities: await identitiesOf(values),
        operator: config.operatorLabel,
        sample: sample === undefined ? undefined : Number(sample),
        logger: STDERR_LOGGER,
      });
      if (!result.ok) throw new AppError('OFFSITE_COPY_BROKEN', `The off-site drill failed: ${result.failures.join('; ')}`, { ...result });
      return {
        json: { ...result },
        text: terminalText`Drill passed: ${result.rows} records compared (${result.newer} newer than the copy), ${result.blobs} blobs decrypted and checked, from generation ${result.generation ?? ''}, segment ${result.segment ?? ''}.`,
      };
    } finally {
      await target.close();
    }
  },
};

const offsiteCheckCommand: Command = {
  words: ['offsite', 'check'],
  summary:
    'Check now, without decrypting, that every object shipped is at the target with the sha256 it was written with (what OFFSITE_CHECK_INTERVAL runs)',
  options: {},
  async run({ config, store }) {
    if (config.offsite === undefined)
      throw new UsageError('offsite check reads OFFSITE_URL (and the OFFSITE_S3_* settings): set them as the service has them');
    const { checkCopy } = await import('../../offsite/offsite-check.ts');
    const target = await targetOf({}, config);
    try {
      const result = await checkCopy(await store(), target, STDERR_LOGGER);
      if (!result.ok) throw new AppError('OFFSITE_COPY_BROKEN', `The off-site copy failed its check: ${result.failure}`, { ...result });
      return {
        json: { ...result },
        text: terminalText`Check passed: ${result.objects} objects, ${result.bytes} bytes, each with the sha256 it was shipped with.`,
      };
    } finally {
      await target.close();
    }
  },
};

export const offsiteCommands: Command[] = [
  offsiteStatusCommand,
  offsiteCheckCommand,
  offsiteVerifyCommand,
  offsiteDrillCommand,
  offsiteRestoreCommand,
];
