import { requireHeld, type TenantView } from '../../administration/admin-rules.ts';
import type { AdministrationAudit } from '../../administration/administration-audit.ts';
import { tenantView } from '../../administration/tenant-views.ts';
import { parseRecipients } from '../../age/age-keys.ts';
import type { Config } from '../../config/config.ts';
import { parseOffsiteUrl } from '../../config/offsite-url.ts';
import { AppError } from '../../errors/app-error.ts';
import type { RunLease } from '../../model/actors.ts';
import type { Admin } from '../../model/admins.ts';
import type { MetadataStore } from '../../model/metadata-store.ts';
import type { TenantOffsiteTarget } from '../../model/tenant-offsite.ts';
import type { OutboundAllow } from '../../outbound/outbound-allow.ts';
import { checkOutboundUrl } from '../../outbound/outbound-guard.ts';
import { requireSecretBox } from '../../secrets/open-secret-box.ts';
import type { SecretBox } from '../../secrets/secret-box.ts';
import { type TenantOffsiteView, targetSnapshot, tenantOffsiteView } from './tenant-offsite-views.ts';
import type { OpenTenantTarget, TenantShipper } from './tenant-shipper.ts';
import { awsEndpoint, secretContext } from './tenant-targets.ts';

/** What PUT /api/offsite takes. */
export interface TenantOffsiteRequest {
  url: string;
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  accessKeyId: string;
  secretAccessKey: string;
  recipients: string[];
}

/** A checked request, its secret sealed: what a change runs with, now or once its proposal is approved. */
export interface PlannedTarget {
  url: string;
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
  accessKeyId: string;
  secretSealed: string;
  recipients: string[];
}

/** A bucket the service or its operator writes to: a tenant's copy must go elsewhere. */
export interface ReservedBucket {
  bucket: string;
  /** The store's URL; undefined: AWS. */
  endpoint: string | undefined;
  /** The prefix the operator's copy takes (undefined: the whole bucket is the service's). */
  prefix?: string;
  what: string;
}

/** The buckets a tenant's own copy may not go to, from the service's settings: its own bucket, and the operator's copy. */
export function reservedBuckets(config: Pick<Config, 'storage' | 'offsite'>): ReservedBucket[] {
  const reserved: ReservedBucket[] = [];
  if (config.storage.s3)
    reserved.push({ bucket: config.storage.s3.bucket, endpoint: config.storage.s3.endpoint, what: "the service's own bucket" });
  const target = config.offsite?.target;
  if (target?.kind === 's3') {
    reserved.push({
      bucket: target.bucket,
      endpoint: config.offsite?.s3?.endpoint,
      prefix: target.prefix,
      what: "the operator's off-site copy",
    });
  }
  return reserved;
}

export interface TargetCheck {
  ok: boolean;
  result: string;
  checkedAt: string;
}

const DEFAULT_REGION = 'us-east-1';
const MAX_RECIPIENTS = 20;
const REGION = /^[a-z0-9-]{1,50}$/;

/**
 * A tenant's own off-site target (docs/offsite.md, "A tenant's own copy"), for holders of
 * offsite:manage: set, read with its progress, tested, removed. Each change commits with its audit
 * entry (offsite.change), which names the bucket, endpoint and recipients and never the secret,
 * sealed under SECRETS_KEY from the moment the request is checked.
 */
export class TenantOffsiteService {
  constructor(
    private readonly deps: {
      store: MetadataStore;
      audit: AdministrationAudit;
      box: SecretBox | undefined;
      allow: OutboundAllow;
      reserved: readonly ReservedBucket[];
      openTarget: OpenTenantTarget | undefined;
      shipper: TenantShipper | undefined;
      now?: () => number;
      lookup?: Parameters<typeof checkOutboundUrl>[2];
    },
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** The tenant of an admin who may manage the tenant's off-site target (PERMISSION_DENIED otherwise). */
  async managerTenant(actorId: string): Promise<string> {
    return (await this.managerView(actorId)).actor.tenantId;
  }

  async plan(actorId: string, request: TenantOffsiteRequest): Promise<PlannedTarget> {
    const view = await this.managerView(actorId);
    const box = requireSecretBox(this.deps.box);
    const parsed = parseBucketUrl(request.url);
    const region = request.region ?? DEFAULT_REGION;
    if (!REGION.test(region))
      throw new AppError(
        'VALIDATION_FAILED',
        `region must be an S3 region name such as eu-central-1, not ${JSON.stringify(region.slice(0, 60))}`,
      );
    const recipients = checkRecipients(request.recipients);
    if (request.accessKeyId.trim() === '' || request.secretAccessKey === '') {
      throw new AppError(
        'VALIDATION_FAILED',
        'accessKeyId and secretAccessKey must not be empty: give the bucket key the copy is written with',
      );
    }
    const endpoint = request.endpoint === undefined || request.endpoint === '' ? null : checkEndpointShape(request.endpoint);
    // Checked now, so that an address the service will never reach is refused when it is set; every
    // connection is checked again (guarded-lookup.ts), since a name may resolve elsewhere later.
    await checkOutboundUrl(endpoint ?? awsEndpoint(region), this.deps.allow, this.deps.lookup);
    await this.refuseTaken(view.actor.tenantId, parsed, endpoint);
    return {
      url: request.url,
      endpoint,
      region,
      forcePathStyle: request.forcePathStyle ?? false,
      accessKeyId: request.accessKeyId,
      secretSealed: box.seal(request.secretAccessKey, secretContext(view.actor.tenantId)),
      recipients,
    };
  }

  async set(actorId: string, planned: PlannedTarget, revision?: number, lease?: RunLease): Promise<TenantOffsiteView> {
    const view = await this.managerView(actorId);
    const tenantId = view.actor.tenantId;
    const now = this.now();
    const target = await this.deps.store.atomically(async (tx) => {
      const before = await tx.tenantOffsite.getTarget(tenantId);
      if (revision !== undefined && (before?.revision ?? 0) !== revision) {
        throw new AppError('PRECONDITION_FAILED', "The tenant's off-site target was changed since; read it again");
      }
      const after: TenantOffsiteTarget = {
        tenantId,
        ...planned,
        setBy: view.actor.id,
        revision: (before?.revision ?? 0) + 1,
        createdAt: before?.createdAt ?? now,
        updatedAt: now,
      };
      await tx.tenantOffsite.putTarget(after);
      await this.deps.audit.append(tx.files, entry(view.actor, before ? targetSnapshot(before) : null, targetSnapshot(after), lease));
      return after;
    });
    return tenantOffsiteView(this.deps.store, target, this.now());
  }

  async get(actorId: string): Promise<TenantOffsiteView> {
    const target = await this.current(await this.managerTenant(actorId));
    return tenantOffsiteView(this.deps.store, target, this.now());
  }

  /** The target as it stands, for a held change's plan (its revision is the plan's ETag). */
  async current(tenantId: string): Promise<TenantOffsiteTarget> {
    const target = await this.deps.store.tenantOffsite.getTarget(tenantId);
    if (target === undefined) {
      throw new AppError('OFFSITE_NOT_SET', 'This tenant has no off-site target of its own: PUT /api/offsite sets one');
    }
    return target;
  }

  /** Stops shipping: nothing at the target is deleted, and what the service knew of it is forgotten. */
  async remove(actorId: string, revision?: number, lease?: RunLease): Promise<void> {
    const view = await this.managerView(actorId);
    await this.deps.store.atomically(async (tx) => {
      const before = await tx.tenantOffsite.getTarget(view.actor.tenantId);
      if (before === undefined) throw new AppError('OFFSITE_NOT_SET', 'This tenant has no off-site target of its own to remove');
      if (revision !== undefined && before.revision !== revision) {
        throw new AppError('PRECONDITION_FAILED', "The tenant's off-site target was changed since; read it again");
      }
      await tx.tenantOffsite.removeTarget(view.actor.tenantId);
      await this.deps.audit.append(tx.files, entry(view.actor, targetSnapshot(before), null, lease));
    });
  }

  /**
   * Tests the target now: reaches it with its credentials, reads its marker and lists its copy, and
   * (when the copy is behind) ships what is pending. The result is the target's last check.
   */
  async test(actorId: string): Promise<TargetCheck> {
    const tenantId = await this.managerTenant(actorId);
    const target = await this.current(tenantId);
    const open = this.deps.openTarget;
    if (open === undefined) requireSecretBox(this.deps.box);
    const started = this.now();
    let result: string;
    try {
      // What is pending first, so that the answer describes the copy as the test leaves it.
      if (this.deps.shipper) await this.deps.shipper.shipNow(tenantId);
      const opened = await open!(target);
      try {
        let segments = 0;
        for await (const _object of opened.list('generations/')) segments++;
        const marker = await opened.head('target.json');
        const shipped = this.deps.shipper ? ', everything pending shipped' : '';
        result = `ok: reached ${opened.description} in ${this.now() - started} ms; ${segments} segment${segments === 1 ? '' : 's'} there${marker ? '' : ', no copy yet'}${shipped}`;
      } finally {
        await opened.close().catch(() => undefined);
      }
    } catch (error) {
      result = `failed: ${(error as Error).message}`.slice(0, 1000);
    }
    const at = this.now();
    await this.deps.store.tenantOffsite.noteCheck(tenantId, target.revision, result, at);
    return { ok: result.startsWith('ok'), result, checkedAt: new Date(at).toISOString() };
  }

  private async managerView(actorId: string): Promise<TenantView> {
    const view = await tenantView(this.deps.store, actorId);
    requireHeld(view, 'offsite:manage');
    return view;
  }

  /** Not the service's own bucket, the operator's copy, nor another tenant's target. */
  private async refuseTaken(tenantId: string, parsed: { bucket: string; prefix: string }, endpoint: string | null): Promise<void> {
    const same = (bucket: string, other: string | null | undefined) => bucket === parsed.bucket && sameStore(endpoint, other);
    for (const reserved of this.deps.reserved) {
      if (!same(reserved.bucket, reserved.endpoint)) continue;
      if (reserved.prefix === undefined || overlaps(reserved.prefix, parsed.prefix)) {
        throw new AppError(
          'OFFSITE_TARGET_TAKEN',
          `s3://${parsed.bucket}/${parsed.prefix} is ${reserved.what}: a tenant's copy must be kept elsewhere`,
        );
      }
    }
    for (const other of await this.deps.store.tenantOffsite.targets()) {
      if (other.tenantId === tenantId) continue;
      const theirs = parseOffsiteUrl(other.url);
      if (theirs.kind === 's3' && same(theirs.bucket, other.endpoint) && overlaps(theirs.prefix, parsed.prefix)) {
        throw new AppError(
          'OFFSITE_TARGET_TAKEN',
          `s3://${parsed.bucket}/${parsed.prefix} holds another tenant's copy: choose another bucket or prefix`,
        );
      }
    }
  }
}

function entry(actor: Admin, before: Record<string, unknown> | null, after: Record<string, unknown> | null, lease?: RunLease) {
  return {
    tenantId: actor.tenantId,
    adminId: actor.id,
    action: 'offsite.change' as const,
    targetAdminId: actor.id,
    before,
    after,
    run: lease,
  };
}

function parseBucketUrl(url: string): { bucket: string; prefix: string } {
  let parsed: ReturnType<typeof parseOffsiteUrl>;
  try {
    parsed = parseOffsiteUrl(url);
  } catch (error) {
    throw new AppError('VALIDATION_FAILED', `url: ${(error as Error).message}`);
  }
  if (parsed.kind !== 's3') throw new AppError('VALIDATION_FAILED', "url must be the tenant's bucket as s3://bucket/prefix");
  return parsed;
}

function checkEndpointShape(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new AppError(
      'VALIDATION_FAILED',
      `endpoint must be the S3 store's URL, as https://host[:port], not ${JSON.stringify(endpoint.slice(0, 80))}`,
    );
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || (url.pathname !== '/' && url.pathname !== '')) {
    throw new AppError(
      'VALIDATION_FAILED',
      "endpoint must be the S3 store's URL alone (https://host[:port]): no path, query, fragment or user information",
    );
  }
  return url.origin;
}

function checkRecipients(recipients: string[]): string[] {
  if (recipients.length === 0 || recipients.length > MAX_RECIPIENTS) {
    throw new AppError(
      'VALIDATION_FAILED',
      `recipients must list 1 to ${MAX_RECIPIENTS} age recipients (age1…): the copy is encrypted to them`,
    );
  }
  for (const recipient of recipients) {
    if (/^AGE-SECRET-KEY-/i.test(recipient.trim())) {
      throw new AppError(
        'VALIDATION_FAILED',
        'recipients holds an age identity (AGE-SECRET-KEY-…): give its recipient (age-keygen -y), and keep the identity to yourself',
      );
    }
    try {
      parseRecipients(recipient);
    } catch (error) {
      throw new AppError('VALIDATION_FAILED', `recipients: ${(error as Error).message}`);
    }
  }
  return [...new Set(recipients.map((r) => r.trim()))];
}

/** Two endpoints name the same store: both AWS (none given, or amazonaws.com), or the same origin. */
function sameStore(a: string | null | undefined, b: string | null | undefined): boolean {
  const norm = (endpoint: string | null | undefined) => {
    if (endpoint === null || endpoint === undefined || endpoint === '') return 'aws';
    try {
      const url = new URL(endpoint);
      return url.hostname.endsWith('.amazonaws.com') ? 'aws' : `${url.hostname.toLowerCase()}:${url.port}`;
    } catch {
      return endpoint;
    }
  };
  return norm(a) === norm(b);
}

/** Whether two prefixes of one bucket share objects: one is the other, or a folder of it. */
function overlaps(a: string, b: string): boolean {
  if (a === '' || b === '' || a === b) return true;
  return a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}
