import { parseOffsiteUrl } from '../../config/offsite-url.ts';
import type { TenantOffsiteTarget } from '../../model/tenant-offsite.ts';
import { guardedLookup } from '../../outbound/guarded-lookup.ts';
import type { OutboundAllow } from '../../outbound/outbound-allow.ts';
import type { SecretBox } from '../../secrets/secret-box.ts';
import { S3Target } from '../target/s3-target.ts';
import type { OpenTenantTarget } from './tenant-shipper.ts';

/** The context a tenant's bucket secret is sealed under: sealed for one tenant, it opens for no other. */
export const secretContext = (tenantId: string): string => `tenant-offsite:${tenantId}:secret`;

/** AWS S3's endpoint for a region, when a tenant names none (what the SDK would reach). */
export const awsEndpoint = (region: string): string => `https://s3.${region}.amazonaws.com`;

/**
 * Opens tenants' targets: the secret unsealed only here, every connection's DNS answer passing the
 * outbound rules (a name set when it resolved to a public address may resolve elsewhere later).
 */
export function tenantTargetOpener(options: { box: SecretBox; allow: OutboundAllow; timeoutSeconds: number }): OpenTenantTarget {
  const lookup = guardedLookup(options.allow);
  return async (target: TenantOffsiteTarget) => {
    const parsed = parseOffsiteUrl(target.url);
    if (parsed.kind !== 's3') throw new Error(`${target.url} is not an s3:// URL`);
    return new S3Target({
      bucket: parsed.bucket,
      prefix: parsed.prefix,
      endpoint: target.endpoint ?? awsEndpoint(target.region),
      region: target.region,
      forcePathStyle: target.forcePathStyle,
      accessKeyId: target.accessKeyId,
      secretAccessKey: options.box.open(target.secretSealed, secretContext(target.tenantId)),
      timeoutSeconds: options.timeoutSeconds,
      lockDays: 0,
      lookup,
    });
  };
}
