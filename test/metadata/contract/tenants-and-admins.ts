import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { openDatabase } from '../../../src/metadata/database.ts';
import { metadataStore } from '../../../src/metadata/metadata-store.ts';
import { openMetadataStore } from '../../../src/metadata/open-metadata-store.ts';
import { type ContractContext, ID_SUFFIX, randomWallet } from './support.ts';

/** Tenants, admins, wallets, owners and permissions. */
export function tenantAndAdminContract(ctx: ContractContext): void {
  describe('tenants', () => {
    test('a fresh store is empty until its first tenant', async () => {
      const fresh = await ctx.createStorage();
      const other = await openMetadataStore(fresh.options);
      try {
        assert.equal(await other.isEmpty(), true);
        await other.createTenant({ name: 'First' });
        assert.equal(await other.isEmpty(), false);
      } finally {
        await other.close();
        await fresh.drop();
      }
    });

    test('createTenant returns what getTenant reads back', async () => {
      const before = Date.now();
      const created = await ctx.tenant('  Acme Corp ');
      assert.match(created.id, new RegExp(`^t_${ID_SUFFIX}$`));
      assert.equal(created.name, 'Acme Corp');
      assert.deepEqual(created.features, []);
      assert.ok(created.createdAt >= before && created.createdAt <= Date.now());
      assert.deepEqual(await ctx.store.getTenant(created.id), created);
      assert.equal(await ctx.store.getTenant('t_nosuchtenant'), undefined);
    });

    test('listTenants lists every tenant with its features, as getTenant reads it', async () => {
      const first = await ctx.tenant('Listed one');
      const second = await ctx.tenant('Listed two');
      await ctx.store.addTenantFeature(second.id, 'reports');
      const listed = await ctx.store.listTenants();
      const byId = (a?: { id: string }, b?: { id: string }) => (a?.id ?? '').localeCompare(b?.id ?? '');
      assert.deepEqual(
        listed.filter((t) => t.id === first.id || t.id === second.id).sort(byId),
        [await ctx.store.getTenant(first.id), await ctx.store.getTenant(second.id)].sort(byId),
      );
      const times = listed.map((t) => t.createdAt);
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
        'oldest first',
      );
    });

    test('a tenant name must not be blank', async () => {
      await assert.rejects(ctx.store.createTenant({ name: '  ' }), { code: 'VALIDATION_FAILED', message: /Tenant name/ });
    });

    test('tenant features are sorted, and adding one twice is harmless', async () => {
      const t = await ctx.tenant();
      await ctx.store.addTenantFeature(t.id, 'reports');
      await ctx.store.addTenantFeature(t.id, 'beta');
      const again = await ctx.store.addTenantFeature(t.id, 'reports');
      assert.deepEqual(again.features, ['beta', 'reports']);
      assert.deepEqual((await ctx.store.getTenant(t.id))?.features, ['beta', 'reports']);
    });

    test('adding a feature needs a real tenant and a non-blank feature', async () => {
      const t = await ctx.tenant();
      await assert.rejects(ctx.store.addTenantFeature('t_missing', 'x'), { code: 'TENANT_NOT_FOUND', message: /t_missing/ });
      await assert.rejects(ctx.store.addTenantFeature(t.id, ' '), { code: 'VALIDATION_FAILED' });
    });
  });

  describe('admins', () => {
    test('createAdmin stores a lowercase wallet, sorted permissions and features, and reads back the same', async () => {
      const t = await ctx.tenant();
      const wallet = randomWallet();
      const created = await ctx.store.createAdmin({
        tenantId: t.id,
        wallet,
        displayName: ' Ada ',
        permissions: ['files:write', 'audit:read', 'files:write'],
        features: ['zeta', 'alpha'],
      });
      assert.match(created.id, new RegExp(`^adm_${ID_SUFFIX}$`));
      assert.equal(created.wallet, wallet.toLowerCase());
      assert.equal(created.displayName, 'Ada');
      assert.equal(created.ownerAdminId, null);
      assert.equal(created.status, 'ACTIVE');
      assert.deepEqual(created.permissions, ['audit:read', 'files:write']);
      assert.deepEqual(created.features, ['alpha', 'zeta']);
      assert.equal(created.updatedAt, created.createdAt);
      assert.deepEqual(await ctx.store.getAdmin(created.id), created);
      assert.equal(await ctx.store.getAdmin('adm_missing'), undefined);
    });

    test('findAdminByWallet ignores letter case', async () => {
      const a = await ctx.admin(await ctx.tenant());
      assert.deepEqual(await ctx.store.findAdminByWallet(a.wallet.toUpperCase().replace('0X', '0x')), a);
      assert.deepEqual(await ctx.store.findAdminByWallet(a.wallet), a);
      assert.equal(await ctx.store.findAdminByWallet(randomWallet()), undefined);
      await assert.rejects(ctx.store.findAdminByWallet('0x1234'), { code: 'VALIDATION_FAILED' });
    });

    test('a wallet must be 0x and 40 hexadecimal digits', async () => {
      const t = await ctx.tenant();
      const hex = randomBytes(20).toString('hex');
      for (const wallet of ['not-a-wallet', `0x${hex.slice(2)}`, `0x${hex}0`, hex, `0X${hex}`, `0x${hex.slice(1)}g`, '']) {
        await assert.rejects(
          ctx.store.createAdmin({ tenantId: t.id, wallet, displayName: 'X' }),
          { code: 'VALIDATION_FAILED', message: /Wallet address/ },
          wallet,
        );
      }
    });

    test('a wallet belongs to one admin in any letter case, across tenants too', async () => {
      const a = await ctx.admin(await ctx.tenant());
      const upper = `0x${a.wallet.slice(2).toUpperCase()}`;
      await assert.rejects(ctx.store.createAdmin({ tenantId: (await ctx.tenant()).id, wallet: upper, displayName: 'Copy' }), {
        code: 'WALLET_TAKEN',
        message: new RegExp(a.wallet),
      });
    });

    test('createAdmin needs a real tenant, a display name and non-blank permissions and features', async () => {
      const t = await ctx.tenant();
      await assert.rejects(ctx.store.createAdmin({ tenantId: 't_missing', wallet: randomWallet(), displayName: 'X' }), {
        code: 'TENANT_NOT_FOUND',
        message: /t_missing/,
      });
      await assert.rejects(ctx.store.createAdmin({ tenantId: t.id, wallet: randomWallet(), displayName: '' }), {
        code: 'VALIDATION_FAILED',
        message: /Display name/,
      });
      await assert.rejects(
        ctx.store.createAdmin({ tenantId: t.id, wallet: randomWallet(), displayName: 'X', permissions: ['files:read', ' '] }),
        {
          code: 'VALIDATION_FAILED',
          message: /Permission/,
        },
      );
      await assert.rejects(ctx.store.createAdmin({ tenantId: t.id, wallet: randomWallet(), displayName: 'X', features: [''] }), {
        code: 'VALIDATION_FAILED',
        message: /Feature/,
      });
      assert.deepEqual(await ctx.store.listAdmins(t.id), [], 'nothing half-created');
    });

    test('an owner must exist and be in the same tenant', async () => {
      const t = await ctx.tenant();
      const owner = await ctx.admin(t);
      const member = await ctx.admin(t, { ownerAdminId: owner.id });
      assert.equal(member.ownerAdminId, owner.id);
      assert.equal((await ctx.store.getAdmin(member.id))?.ownerAdminId, owner.id);
      await assert.rejects(ctx.admin(t, { ownerAdminId: 'adm_missing' }), { code: 'ADMIN_NOT_FOUND', message: /Owner admin adm_missing/ });
      await assert.rejects(ctx.admin(await ctx.tenant(), { ownerAdminId: owner.id }), {
        code: 'VALIDATION_FAILED',
        message: /another tenant/,
      });
    });

    test("listAdmins returns one tenant's admins by creation time, then id", async () => {
      const t = await ctx.tenant();
      const created = [await ctx.admin(t, { permissions: ['files:read'] }), await ctx.admin(t), await ctx.admin(t)];
      await ctx.admin(await ctx.tenant());
      const listed = await ctx.store.listAdmins(t.id);
      const expected = [...created].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
      assert.deepEqual(listed, expected);
      assert.deepEqual(await ctx.store.listAdmins((await ctx.tenant()).id), []);
      await assert.rejects(ctx.store.listAdmins('t_missing'), { code: 'TENANT_NOT_FOUND' });
    });

    test('setAdminStatus suspends and reactivates, and refuses unknown statuses', async () => {
      const a = await ctx.admin(await ctx.tenant());
      const suspended = await ctx.store.setAdminStatus(a.id, 'SUSPENDED');
      assert.equal(suspended.status, 'SUSPENDED');
      assert.ok(suspended.updatedAt >= a.updatedAt);
      assert.equal((await ctx.store.getAdmin(a.id))?.status, 'SUSPENDED');
      assert.equal((await ctx.store.setAdminStatus(a.id, 'ACTIVE')).status, 'ACTIVE');
      await assert.rejects(ctx.store.setAdminStatus(a.id, 'GONE' as 'ACTIVE'), {
        code: 'VALIDATION_FAILED',
        message: /ACTIVE or SUSPENDED/,
      });
      await assert.rejects(ctx.store.setAdminStatus('adm_missing', 'ACTIVE'), { code: 'ADMIN_NOT_FOUND', message: /adm_missing/ });
    });

    test('setAdminWallet moves an admin to a new wallet that nobody else holds', async () => {
      const t = await ctx.tenant();
      const a = await ctx.admin(t);
      const b = await ctx.admin(t);
      const next = randomWallet();
      const moved = await ctx.store.setAdminWallet(a.id, next);
      assert.equal(moved.wallet, next.toLowerCase());
      assert.equal(await ctx.store.findAdminByWallet(a.wallet), undefined);
      assert.equal((await ctx.store.findAdminByWallet(next))?.id, a.id);
      assert.equal(
        (await ctx.store.setAdminWallet(a.id, next.toUpperCase().replace('0X', '0x'))).wallet,
        next.toLowerCase(),
        'its own wallet again is fine',
      );
      await assert.rejects(ctx.store.setAdminWallet(a.id, b.wallet.toUpperCase().replace('0X', '0x')), { code: 'WALLET_TAKEN' });
      await assert.rejects(ctx.store.setAdminWallet(a.id, '0xnope'), { code: 'VALIDATION_FAILED' });
      await assert.rejects(ctx.store.setAdminWallet('adm_missing', randomWallet()), { code: 'ADMIN_NOT_FOUND' });
    });

    test('the sign-out cut only moves forward: a later sign-out, suspension or rotation from a machine whose clock runs behind keeps it', async () => {
      const a = await ctx.admin(await ctx.tenant());
      const cut = (await ctx.store.signOutEverywhere(a.id)).signedOutBefore!;
      assert.ok(cut !== null && Math.abs(cut - Date.now()) < 60_000);
      // Another machine on the same database (an operator's CLI, another instance) whose clock is an hour behind.
      const { db, engine } = await openDatabase({ ...ctx.storage.options, logger: console });
      const behind = metadataStore(db, engine, () => Date.now() - 3_600_000);
      try {
        assert.equal((await behind.signOutEverywhere(a.id)).signedOutBefore, cut);
        assert.equal((await behind.setAdminStatus(a.id, 'SUSPENDED')).signedOutBefore, cut);
        assert.equal((await behind.setAdminStatus(a.id, 'ACTIVE')).signedOutBefore, cut);
        assert.equal((await behind.setAdminWallet(a.id, randomWallet())).signedOutBefore, cut);
        assert.equal((await ctx.store.getAdmin(a.id))?.signedOutBefore, cut);
        // A machine ahead moves it on.
        const ahead = (await ctx.store.signOutEverywhere(a.id)).signedOutBefore!;
        assert.ok(ahead >= cut);
        const later = metadataStore(db, engine, () => ahead + 5_000);
        assert.equal((await later.signOutEverywhere(a.id)).signedOutBefore, ahead + 5_000);
      } finally {
        await behind.close();
      }
    });

    test('permissions are granted and revoked idempotently and stay sorted', async () => {
      const a = await ctx.admin(await ctx.tenant(), { permissions: ['files:write'] });
      assert.deepEqual((await ctx.store.grantPermission(a.id, 'files:read')).permissions, ['files:read', 'files:write']);
      assert.deepEqual((await ctx.store.grantPermission(a.id, 'audit:read')).permissions, ['audit:read', 'files:read', 'files:write']);
      assert.deepEqual((await ctx.store.grantPermission(a.id, 'audit:read')).permissions, ['audit:read', 'files:read', 'files:write']);
      assert.deepEqual((await ctx.store.revokePermission(a.id, 'files:write')).permissions, ['audit:read', 'files:read']);
      assert.deepEqual((await ctx.store.revokePermission(a.id, 'backups:create')).permissions, ['audit:read', 'files:read'], 'never held');
      assert.deepEqual((await ctx.store.getAdmin(a.id))?.permissions, ['audit:read', 'files:read']);
      await assert.rejects(ctx.store.grantPermission(a.id, '  '), { code: 'VALIDATION_FAILED' });
      await assert.rejects(ctx.store.revokePermission(a.id, ''), { code: 'VALIDATION_FAILED' });
      await assert.rejects(ctx.store.grantPermission('adm_missing', 'files:read'), { code: 'ADMIN_NOT_FOUND' });
      await assert.rejects(ctx.store.revokePermission('adm_missing', 'files:read'), { code: 'ADMIN_NOT_FOUND' });
    });

    test('only the permissions the service checks are stored: a misspelt one is refused, naming them, and nothing changes', async () => {
      const t = await ctx.tenant();
      const a = await ctx.admin(t, { permissions: ['files:read'] });
      const naming = { code: 'VALIDATION_FAILED', message: /files:read, files:write, files:restore, backups:create, audit:read/ };
      await assert.rejects(ctx.store.grantPermission(a.id, 'files:restor'), naming);
      await assert.rejects(ctx.store.grantPermission(a.id, 'FILES:READ'), naming);
      await assert.rejects(ctx.store.revokePermission(a.id, 'files:reed'), naming, 'a revoke of a misspelt permission it does not hold');
      await assert.rejects(
        ctx.store.createAdmin({ tenantId: t.id, wallet: randomWallet(), displayName: 'X', permissions: ['audit:reed'] }),
        naming,
      );
      assert.deepEqual((await ctx.store.getAdmin(a.id))?.permissions, ['files:read']);
      assert.equal((await ctx.store.listAdmins(t.id)).length, 1, 'no admin was created');
    });

    test('features are free labels of one shape: lowercase words joined by . _ : -, never blank, spaced or with control characters', async () => {
      const t = await ctx.tenant();
      for (const feature of ['beta', 'reports', 'editor:v2', 'new-ui', 'a.b_c', '2fa']) {
        assert.ok((await ctx.store.addTenantFeature(t.id, feature)).features.includes(feature), feature);
      }
      for (const feature of ['', ' ', 'Beta', 'new ui', 'beta\n', 'tab\there', 'x\u0000', '-beta', 'beta-', 'a--b', 'x'.repeat(101), 'é']) {
        await assert.rejects(
          ctx.store.addTenantFeature(t.id, feature),
          { code: 'VALIDATION_FAILED', message: /^Feature must be lowercase/ },
          JSON.stringify(feature),
        );
        await assert.rejects(ctx.store.createAdmin({ tenantId: t.id, wallet: randomWallet(), displayName: 'X', features: [feature] }), {
          code: 'VALIDATION_FAILED',
        });
      }
      assert.equal((await ctx.store.getTenant(t.id))?.features.length, 6);
      assert.deepEqual(await ctx.store.listAdmins(t.id), []);
    });

    test('of two concurrent createAdmin with one wallet, exactly one wins', async () => {
      const t = await ctx.tenant();
      const wallet = randomWallet();
      const results = await Promise.allSettled([
        ctx.store.createAdmin({ tenantId: t.id, wallet: wallet.toLowerCase(), displayName: 'A' }),
        ctx.store.createAdmin({ tenantId: t.id, wallet: `0x${wallet.slice(2).toUpperCase()}`, displayName: 'B' }),
      ]);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      const failure = results.find((r) => r.status === 'rejected');
      assert.equal((failure as PromiseRejectedResult).reason.code, 'WALLET_TAKEN');
      assert.equal((await ctx.store.listAdmins(t.id)).length, 1);
    });
  });
}
