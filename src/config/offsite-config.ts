import path from 'node:path';
import { parseRecipients } from '../age/age-keys.ts';
import type { EnvReader } from './env-readers.ts';
import { type ParsedOffsiteUrl, parseOffsiteUrl } from './offsite-url.ts';

/** Off-site copies (docs/offsite.md): where, encrypted to whom, and how often each of its chores runs. */
export interface OffsiteConfig {
  target: ParsedOffsiteUrl;
  /** The age recipients (age1…) every segment and blob is encrypted to. */
  recipients: string[];
  s3:
    | {
        endpoint: string | undefined;
        region: string;
        forcePathStyle: boolean;
        accessKeyId: string;
        secretAccessKey: string;
        timeoutSeconds: number;
      }
    | undefined;
  /** How often the shipper looks for changes (OFFSITE_SHIP_INTERVAL, milliseconds). */
  shipIntervalMs: number;
  /** A new generation (snapshot) after this many seconds (OFFSITE_SNAPSHOT_INTERVAL). */
  snapshotIntervalSeconds: number;
  /** Generations older than this are removed once a newer one verified; 0 keeps all (OFFSITE_KEEP_DAYS). */
  keepDays: number;
  /** S3 Object Lock retention of every object written; 0: none (OFFSITE_LOCK_DAYS). */
  lockDays: number;
  /** The scheduled check without decrypting; 0: off (OFFSITE_CHECK_INTERVAL, seconds). */
  checkIntervalSeconds: number;
}

/**
 * What only the shipper reads: refused without OFFSITE_URL. The OFFSITE_S3_* settings are not among
 * them: `offsite verify|restore|drill --from s3://…` read them on a machine that ships nothing.
 */
const OFFSITE_ONLY = [
  'OFFSITE_RECIPIENTS',
  'OFFSITE_SHIP_INTERVAL',
  'OFFSITE_SNAPSHOT_INTERVAL',
  'OFFSITE_KEEP_DAYS',
  'OFFSITE_LOCK_DAYS',
  'OFFSITE_CHECK_INTERVAL',
];

/**
 * The primary storage the copy must not share: a target inside DATA_DIR, or the service's own
 * bucket, or its credentials, would be lost (or taken) with what it protects.
 */
export interface PrimaryStorage {
  dataDir: string;
  s3: { bucket: string; endpoint: string | undefined } | undefined;
  /** The primary's access key (AWS_ACCESS_KEY_ID), which the copy's must differ from. */
  accessKeyId: string | undefined;
}

export function readOffsiteConfig(read: EnvReader, primary: PrimaryStorage): OffsiteConfig | undefined {
  const url = read.raw('OFFSITE_URL');
  if (url === undefined) {
    for (const name of OFFSITE_ONLY) if (read.raw(name) !== undefined) read.problems.push(`${name} applies only with OFFSITE_URL`);
    return undefined;
  }
  let target: ParsedOffsiteUrl;
  try {
    target = parseOffsiteUrl(url);
  } catch (error) {
    read.problems.push((error as Error).message);
    return undefined;
  }
  const recipients = readRecipients(read);
  const shared = {
    shipIntervalMs: read.integer('OFFSITE_SHIP_INTERVAL', 1000, 50, 3_600_000),
    snapshotIntervalSeconds: read.seconds('OFFSITE_SNAPSHOT_INTERVAL', 86_400, 60),
    keepDays: read.integer('OFFSITE_KEEP_DAYS', 0, 0, 100_000),
    lockDays: read.integer('OFFSITE_LOCK_DAYS', 0, 0, 36_500),
    checkIntervalSeconds: read.seconds('OFFSITE_CHECK_INTERVAL', 0),
  };
  if (target.kind === 'file') {
    if (shared.lockDays > 0) read.problems.push('OFFSITE_LOCK_DAYS needs an s3:// OFFSITE_URL on a bucket with Object Lock');
    const inside = (dir: string, parent: string) => dir === parent || dir.startsWith(`${parent}${path.sep}`);
    if (inside(target.path, primary.dataDir) || inside(primary.dataDir, target.path)) {
      read.problems.push(
        `OFFSITE_URL ${target.path} shares a directory with DATA_DIR ${primary.dataDir}: a copy must not be lost with the disk it protects`,
      );
    }
    return { target, recipients, s3: undefined, ...shared };
  }
  const s3 = readOffsiteS3(read);
  if (s3 && primary.accessKeyId !== undefined && s3.accessKeyId === primary.accessKeyId) {
    read.problems.push(
      "OFFSITE_S3_ACCESS_KEY_ID must differ from the primary bucket's AWS_ACCESS_KEY_ID: a key that can reach both would let one theft take both",
    );
  }
  if (primary.s3 && primary.s3.bucket === target.bucket && (primary.s3.endpoint ?? '') === (s3?.endpoint ?? '')) {
    read.problems.push(`OFFSITE_URL names the primary bucket ${target.bucket} (S3_BUCKET): a copy must be kept elsewhere`);
  }
  return { target, recipients, s3, ...shared };
}

/** The settings of an s3:// off-site target: its endpoint, and credentials of its own (never the AWS_* ones). */
export function readOffsiteS3(read: EnvReader): NonNullable<OffsiteConfig['s3']> | undefined {
  const endpoint = read.url('OFFSITE_S3_ENDPOINT', ['http:', 'https:'])?.href.replace(/\/+$/, '');
  const accessKeyId = read.raw('OFFSITE_S3_ACCESS_KEY_ID');
  const secretAccessKey = read.raw('OFFSITE_S3_SECRET_ACCESS_KEY');
  const region = read.string('OFFSITE_S3_REGION', 'us-east-1');
  const forcePathStyle = read.boolean('OFFSITE_S3_FORCE_PATH_STYLE', false);
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    read.problems.push(
      "OFFSITE_S3_ACCESS_KEY_ID and OFFSITE_S3_SECRET_ACCESS_KEY must be set for an s3:// off-site target (the copy never uses the primary bucket's credentials)",
    );
    return undefined;
  }
  return { endpoint, region, forcePathStyle, accessKeyId, secretAccessKey, timeoutSeconds: read.seconds('S3_TIMEOUT', 60, 1, 3600) };
}

function readRecipients(read: EnvReader): string[] {
  const list = read.raw('OFFSITE_RECIPIENTS');
  if (list === undefined) {
    read.problems.push(
      'OFFSITE_RECIPIENTS must list the age recipients (age1…) the copy is encrypted to; `age-keygen -o key.txt` makes one',
    );
    return [];
  }
  try {
    parseRecipients(list);
  } catch (error) {
    read.problems.push(`OFFSITE_RECIPIENTS: ${(error as Error).message}`);
    return [];
  }
  return list.split(/[\s,]+/).filter((item) => item !== '');
}
