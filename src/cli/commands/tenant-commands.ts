import type { Command } from '../command.ts';
import { stringOption } from '../command.ts';
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
];
