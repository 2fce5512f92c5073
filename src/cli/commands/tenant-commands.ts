import type { QuotaLimits } from '../../model/quotas.ts';
import type { Command, OptionValues } from '../command.ts';
import { optionalString, stringOption, UsageError } from '../command.ts';
import { tenantJson } from '../record-views.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';

export const tenantCommands: Command[] = [
  {
    words: ['tenant', 'create'],
    summary: 'Create a tenant',
    options: { name: { type: 'string', required: true, placeholder: 'NAME', description: 'Tenant name' } },
    async run({ values, directory }) {
      const tenant = await (await directory()).createTenant({ name: stringOption(values, 'name') });
      return { json: tenantJson(tenant), text: terminalText`Created tenant ${tenant.id} (${tenant.name})` };
    },
  },
  {
    words: ['tenant', 'list'],
    summary: 'List every tenant (id and name), oldest first',
    options: {},
    async run({ store }) {
      const tenants = await (await store()).listTenants();
      const lines = tenants.map((t) =>
        t.features.length > 0 ? terminalText`${t.id}  ${t.name}  (features: ${t.features.join(', ')})` : terminalText`${t.id}  ${t.name}`,
      );
      return { json: { items: tenants.map(tenantJson) }, text: lines.length > 0 ? terminalLines(lines) : terminalText`No tenants yet` };
    },
  },
  {
    words: ['tenant', 'feature', 'add'],
    summary: 'Give a tenant a feature (every admin of the tenant gets it)',
    options: {
      tenant: { type: 'string', required: true, placeholder: 'ID', description: 'Tenant id (t_…)' },
      feature: {
        type: 'string',
        required: true,
        placeholder: 'NAME',
        description:
          "A label of your own, which your applications read from the principal's effectiveFeatures (the service gates nothing on it); lowercase letters and digits, words joined by . _ : - (beta, editor:v2)",
      },
    },
    async run({ values, directory }) {
      const tenant = await (await directory()).addTenantFeature(stringOption(values, 'tenant'), stringOption(values, 'feature'));
      return { json: tenantJson(tenant), text: terminalText`Tenant ${tenant.id} features: ${tenant.features.join(', ')}` };
    },
  },
  {
    words: ['tenant', 'set-quota'],
    summary: "Set a tenant's quota in bytes and files (docs/quotas.md); audited as the operator's",
    options: {
      tenant: { type: 'string', required: true, placeholder: 'ID', description: 'Tenant id (t_…)' },
      'max-bytes': {
        type: 'string',
        placeholder: 'N|none',
        description: 'The most bytes its live files and kept versions may hold together; none: no limit; left out: unchanged',
      },
      'max-files': {
        type: 'string',
        placeholder: 'N|none',
        description: 'The most files (records: live files and kept versions) it may hold; none: no limit; left out: unchanged',
      },
    },
    async run({ values, directory, store }) {
      const tenantId = stringOption(values, 'tenant');
      if (values['max-bytes'] === undefined && values['max-files'] === undefined) {
        throw new UsageError('Give --max-bytes, --max-files or both (a number, or none for no limit)');
      }
      const current = await (await store()).getTenant(tenantId);
      const quota: QuotaLimits = {
        maxBytes: limitOption(values, 'max-bytes', current?.quota.maxBytes ?? null),
        maxFiles: limitOption(values, 'max-files', current?.quota.maxFiles ?? null),
      };
      const tenant = await (await directory()).setTenantQuota(tenantId, quota);
      const shown = (limit: number | null, unit: string) => (limit === null ? 'no limit' : `${limit} ${unit}`);
      return {
        json: tenantJson(tenant),
        text: terminalText`Tenant ${tenant.id} quota: ${shown(tenant.quota.maxBytes, 'bytes')}, ${shown(tenant.quota.maxFiles, 'files')}`,
      };
    },
  },
];

/** A limit option: a whole number, none (no limit), or left out (`unchanged`). */
function limitOption(values: OptionValues, name: string, unchanged: number | null): number | null {
  const raw = optionalString(values, name);
  if (raw === undefined) return unchanged;
  if (raw === 'none') return null;
  if (!/^\d{1,16}$/.test(raw) || Number(raw) > Number.MAX_SAFE_INTEGER) {
    throw new UsageError(`Option --${name} must be a whole number of at most ${Number.MAX_SAFE_INTEGER}, or none`);
  }
  return Number(raw);
}
