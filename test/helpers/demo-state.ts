import assert from 'node:assert/strict';
import { DEMO_WALLET } from '../../src/demo/demo-seed.ts';
import { filePath } from '../../src/files/file-path.ts';
import type { TestService } from './test-service.ts';

export type DemoState = Awaited<ReturnType<typeof demoState>>;

/** The demo's records and data, read through the services: what a complete seeding leaves, whichever starts it took. */
export async function demoState(svc: TestService) {
  const { store, files: services } = svc.service;
  const owner = await store.findAdminByWallet(DEMO_WALLET);
  assert.ok(owner, 'the demo owner exists');
  const channels = await store.listChannels(owner.tenantId);
  const channel = (await store.findChannelByName(owner.tenantId, 'demo'))!;
  const page = { limit: 100 };
  const files = await Promise.all(
    ['welcome', 'reports'].map(async (folder) =>
      (await services.files.list(channel, folder, page)).items.map((f) => `${folder}/${f.filename} ${f.sha256.slice(0, 12)}`),
    ),
  );
  const versions = await services.files.listVersions(channel, filePath('welcome', 'prices.csv'), page);
  const audit = (await services.audit.list(channel, page)).items;
  return {
    tenants: (await store.listTenants()).map((t) => t.name),
    admins: (await store.listAdmins(owner.tenantId)).map((a) => `${a.displayName} ${a.status}`),
    channels: channels.map((c) => c.name),
    linked: (await store.listLinkedChannels(owner.tenantId, owner.id, page)).items.map((c) => c.name),
    files: files.flat().sort(),
    backups: (await services.backups.list(channel, page)).items.length,
    priceVersions: versions.items.map((v) => v.kind).sort(),
    audit: audit
      .map((e) => `${e.action} ${e.result} ${e.folder ?? ''}/${e.filename ?? ''} by ${e.adminId === owner.id ? 'the owner' : e.adminId}`)
      .sort(),
  };
}
