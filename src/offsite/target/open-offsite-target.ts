import type { ParsedOffsiteUrl } from '../../config/offsite-url.ts';
import type { OffsiteTarget } from './offsite-target.ts';
import type { S3TargetConfig } from './s3-target.ts';

/** What an S3 target needs besides its bucket and prefix (which OFFSITE_URL gives). */
export type S3TargetOptions = Omit<S3TargetConfig, 'bucket' | 'prefix'>;

/** The target an OFFSITE_URL names; the AWS SDK is loaded only for s3. */
export async function openOffsiteTarget(parsed: ParsedOffsiteUrl, s3Options?: S3TargetOptions): Promise<OffsiteTarget> {
  if (parsed.kind === 's3') {
    if (s3Options === undefined) throw new Error(`s3://${parsed.bucket}/${parsed.prefix} needs the S3 settings (region, credentials, …)`);
    const { S3Target } = await import('./s3-target.ts');
    return new S3Target({ ...s3Options, bucket: parsed.bucket, prefix: parsed.prefix });
  }
  const { DirectoryTarget, isDirectory } = await import('./directory-target.ts');
  // Not created when missing: an off-site disk that is not mounted must not be filled in its mount point's place.
  if (!(await isDirectory(parsed.path))) {
    throw new Error(`${parsed.path} (OFFSITE_URL) is not an existing directory; create it (or mount its disk) first`);
  }
  return new DirectoryTarget(parsed.path);
}
