import { AdministrationAudit } from '../../administration/administration-audit.ts';
import type { Config } from '../../config/config.ts';
import { AppError } from '../../errors/app-error.ts';
import { tenantNotFound } from '../../errors/common-errors.ts';
import type { Admin } from '../../model/admins.ts';
import type { MetadataStore } from '../../model/metadata-store.ts';
import type { TenantOffsiteTarget } from '../../model/tenant-offsite.ts';
import { reservedBuckets, TenantOffsiteService } from '../../offsite/tenant/tenant-offsite-service.ts';
import { targetSnapshot, tenantOffsiteView } from '../../offsite/tenant/tenant-offsite-views.ts';
import { openSecretBox } from '../../secrets/open-secret-box.ts';
import type { SecretBox } from '../../secrets/secret-box.ts';
import type { CommandContext, CommandResult } from '../command.ts';
import { stringOption } from '../command.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';
import { settingsOf } from './offsite-target-options.ts';
import { offsiteTargetDetails } from './offsite-target-views.ts';

/*
 * A tenant's own off-site target on the metadata store, as the operator on the service's machine
 * (docs/offsite.md, "A tenant's own copy"): read as the API shows it (never the secret), set or
 * removed with its `offsite.change` entry in the tenant's chain (no admin, the operator's label),
 * committed with the change. The operator acts outside the tenant's policies, as for a webhook's
 * pause: a proposal pending meanwhile names the revision it was made against, and changes nothing
 * once the operator's change has moved it. Running services ship to the new target at their next round.
 * Loaded only by the commands that run here.
 */

/** Who a change made here records as its setter: the target's setBy names an admin, and the operator is none. */
const operatorSetter = (label: string): string => `operator:${label}`;

/** The tenant named by --tenant, which must exist. */
async function tenantOf(store: MetadataStore, context: CommandContext): Promise<string> {
  const tenantId = stringOption(context.values, 'tenant');
  if (!(await store.getTenant(tenantId))) throw tenantNotFound(tenantId);
  return tenantId;
}

async function targetOf(store: MetadataStore, tenantId: string): Promise<TenantOffsiteTarget> {
  const target = await store.tenantOffsite.getTarget(tenantId);
  if (target === undefined) {
    throw new AppError(
      'OFFSITE_NOT_SET',
      `Tenant ${tenantId} has no off-site target of its own (see: wallet-admin offsite target set --help)`,
    );
  }
  return target;
}

export async function showTargetLocally(context: CommandContext): Promise<CommandResult> {
  const store = await context.store();
  const target = await targetOf(store, await tenantOf(store, context));
  const view = await tenantOffsiteView(store, target, Date.now());
  return { json: { ...view }, text: offsiteTargetDetails(view) };
}

/**
 * The service's SecretBox, as the service opens it (SECRETS_KEY, or DATA_DIR's own key on SQLite).
 * A secret sealed under another key than the service's would stop the tenant's copy at its first
 * round: when the store already keeps secrets, they must have been sealed under this key.
 */
async function secretBoxOf(config: Config, store: MetadataStore): Promise<SecretBox> {
  const box = openSecretBox({ secretsKey: config.secretsKey, dataDir: config.dataDir, embedded: config.databaseUrl === undefined });
  if (box === undefined) {
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      "SECRETS_KEY is not set here: the bucket key's secret is sealed under it. Run the command with the service's SECRETS_KEY",
    );
  }
  const sealed = [
    ...(await store.tenantOffsite.targets()).map((target) => target.secretSealed),
    ...(await store.events.allWebhooks()).map((webhook) => webhook.secretSealed),
  ];
  const other = sealed.map((value) => value.split(':')[1]).find((keyId) => keyId !== undefined && keyId !== box.keyId);
  if (other !== undefined) {
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      `The secrets this store keeps were sealed under another SECRETS_KEY (key id ${other}; here it is ${box.keyId}): run the command with the service's SECRETS_KEY`,
    );
  }
  return box;
}

/**
 * The operator as TenantOffsiteService's checks see it: an owner of the tenant, in no record, so
 * that a request is checked and sealed here exactly as the API checks and seals it (the URL, the
 * region, the recipients, the addresses OUTBOUND_ALLOW lets the service reach, the buckets taken).
 * Only plan() sees it; the change and its entry are made below, as the operator's.
 */
function checkedAsTheService(store: MetadataStore, tenantId: string, label: string) {
  const standIn: Admin = {
    id: operatorSetter(label),
    tenantId,
    wallet: '',
    wallets: [],
    channelIds: [],
    displayName: label,
    ownerAdminId: null,
    status: 'ACTIVE',
    permissions: [],
    features: [],
    createdAt: 0,
    updatedAt: 0,
    signedOutBefore: null,
    removedAt: null,
    revision: 0,
  };
  const view = new Proxy(store, {
    get(target, name) {
      if (name === 'getAdmin') return async (id: string) => (id === standIn.id ? standIn : target.getAdmin(id));
      if (name === 'listAdmins') {
        return async (tenant: string) => [...(await target.listAdmins(tenant)), ...(tenant === tenantId ? [standIn] : [])];
      }
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { standIn, view };
}

export async function setTargetLocally(context: CommandContext): Promise<CommandResult> {
  const { config, operator } = context;
  // Checked and read before the store is opened: a malformed option costs nothing.
  const settings = await settingsOf(context.values);
  const store = await context.store();
  const tenantId = await tenantOf(store, context);
  const audit = new AdministrationAudit(store.files);
  const { standIn, view } = checkedAsTheService(store, tenantId, config.operatorLabel);
  const checks = new TenantOffsiteService({
    store: view,
    audit,
    box: await secretBoxOf(config, store),
    allow: config.events.outboundAllow,
    reserved: reservedBuckets(config),
    openTarget: undefined,
    shipper: undefined,
  });
  const planned = await checks.plan(standIn.id, settings);
  const target = await store.atomically(async (tx) => {
    const before = await tx.tenantOffsite.getTarget(tenantId);
    const now = Date.now();
    const after: TenantOffsiteTarget = {
      tenantId,
      ...planned,
      setBy: operatorSetter(config.operatorLabel),
      revision: (before?.revision ?? 0) + 1,
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
    };
    await tx.tenantOffsite.putTarget(after);
    await audit.append(tx.files, {
      tenantId,
      ...operator,
      action: 'offsite.change',
      // The admin who had set it, as webhook pause names the webhook's creator: its view of the log shows what was done.
      targetAdminId: before?.setBy.startsWith('adm_') ? before.setBy : null,
      before: before ? targetSnapshot(before) : null,
      after: targetSnapshot(after),
    });
    return after;
  });
  const shown = await tenantOffsiteView(store, target, Date.now());
  return {
    json: { ...shown },
    text: terminalLines([
      terminalText`Set: running services ship tenant ${tenantId}'s copy to ${shown.url} from their next round (OFFSITE_TENANT_INTERVAL); the secret is not shown again`,
      offsiteTargetDetails(shown),
    ]),
  };
}

export async function removeTargetLocally(context: CommandContext): Promise<CommandResult> {
  const store = await context.store();
  const tenantId = await tenantOf(store, context);
  const audit = new AdministrationAudit(store.files);
  const removed = await store.atomically(async (tx) => {
    const before = await targetOf(tx, tenantId);
    await tx.tenantOffsite.removeTarget(tenantId);
    await audit.append(tx.files, {
      tenantId,
      ...context.operator,
      action: 'offsite.change',
      targetAdminId: before.setBy.startsWith('adm_') ? before.setBy : null,
      before: targetSnapshot(before),
      after: null,
    });
    return before;
  });
  return {
    json: { tenantId, url: removed.url, removed: true },
    text: terminalText`Removed tenant ${tenantId}'s off-site target ${removed.url}: nothing more is shipped there, and nothing there was deleted`,
  };
}
