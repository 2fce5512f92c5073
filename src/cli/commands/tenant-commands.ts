import type { Command } from '../command.ts';
import { stringOption } from '../command.ts';

export const tenantCommands: Command[] = [
  {
    words: ['tenant', 'create'],
    summary: 'Create a tenant',
    options: { name: { type: 'string', required: true, description: 'Tenant name' } },
    async run({ values, store }) {
      const tenant = await (await store()).createTenant({ name: stringOption(values, 'name') });
      return { json: { ...tenant }, text: `Created tenant ${tenant.id} (${tenant.name})` };
    },
  },
  {
    words: ['tenant', 'feature', 'add'],
    summary: 'Give a tenant a feature (every admin of the tenant gets it)',
    options: {
      tenant: { type: 'string', required: true, description: 'Tenant id (t_…)' },
      feature: { type: 'string', required: true, description: 'Feature name' },
    },
    async run({ values, store }) {
      const tenant = await (await store()).addTenantFeature(stringOption(values, 'tenant'), stringOption(values, 'feature'));
      return { json: { ...tenant }, text: `Tenant ${tenant.id} features: ${tenant.features.join(', ')}` };
    },
  },
];
