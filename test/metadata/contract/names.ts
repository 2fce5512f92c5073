import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ContractContext, randomWallet } from './support.ts';

/**
 * What a name may hold, one rule for tenants, channels and admins as for files and folders: no
 * character that would rewrite the terminal of an operator listing it (ESC, CSI, BEL, CR/LF, DEL)
 * or reorder or hide what it shows (bidi controls, zero-width spaces), and one spelling (NFC).
 */
const HIDING = {
  'ESC (a terminal escape)': 'evil\u001b[2J\u001b]0;pwned\u0007',
  BEL: 'ding\u0007',
  'CR (a faked line)': 'ok\rroot  t_0000',
  'LF (a faked line)': 'ok\nchn_fake  t_fake  fake',
  TAB: 'tab\tbed',
  DEL: 'del\u007f',
  'C1 CSI': 'csi\u009b2J',
  'right-to-left override': 'invoice\u202Egnp.exe',
  'zero width space': 'zero\u200Bwidth',
};

export function nameContract(ctx: ContractContext): void {
  describe('names of tenants, channels and admins', () => {
    test('a name holding a control or format character is refused (VALIDATION_FAILED, naming the rule), and nothing is stored', async () => {
      const t = await ctx.tenant();
      const tenantsBefore = (await ctx.store.listTenants()).length;
      for (const [what, name] of Object.entries(HIDING)) {
        const rule = /must not contain (control|format) characters/;
        await assert.rejects(ctx.store.createTenant({ name }), { code: 'VALIDATION_FAILED', message: /^Tenant name / }, what);
        await assert.rejects(ctx.store.createTenant({ name }), { message: rule }, what);
        await assert.rejects(ctx.store.createChannel({ tenantId: t.id, name }), { code: 'VALIDATION_FAILED', message: rule }, what);
        await assert.rejects(
          ctx.store.createAdmin({ tenantId: t.id, wallet: randomWallet(), displayName: name }),
          { code: 'VALIDATION_FAILED', message: rule },
          what,
        );
      }
      assert.equal((await ctx.store.listTenants()).length, tenantsBefore);
      assert.deepEqual(await ctx.store.listChannels(t.id), []);
      assert.deepEqual(await ctx.store.listAdmins(t.id), []);
    });

    test('joiners between letters stay allowed, as in file names (Persian, emoji)', async () => {
      const t = await ctx.tenant('\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645');
      assert.equal(t.name, '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645');
      const channel = await ctx.store.createChannel({ tenantId: t.id, name: 'team \u{1F469}\u200D\u{1F4BB}' });
      assert.equal(channel.name, 'team \u{1F469}\u200D\u{1F4BB}');
    });

    test('names are stored in NFC, and a channel is found by either spelling; a look-alike is the same name', async () => {
      const t = await ctx.tenant('Soci\u0301te\u0301'.normalize('NFD'));
      assert.equal(t.name, 'Soci\u0301te\u0301'.normalize('NFC'));
      const admin = await ctx.store.createAdmin({ tenantId: t.id, wallet: randomWallet(), displayName: 'Zoe\u0308' });
      assert.equal(admin.displayName, 'Zo\u00eb');
      const channel = await ctx.store.createChannel({ tenantId: t.id, name: 'cafe\u0301' });
      assert.equal(channel.name, 'caf\u00e9');
      assert.deepEqual(await ctx.store.findChannelByName(t.id, 'cafe\u0301'), channel);
      assert.deepEqual(await ctx.store.findChannelByName(t.id, 'caf\u00e9'), channel);
      assert.deepEqual(await ctx.store.findChannelsNamed(t.id, 'cafe\u0301'), [channel]);
      assert.deepEqual(
        (await ctx.store.findChannelsByName('cafe\u0301')).filter((c) => c.tenantId === t.id),
        [channel],
      );
      await assert.rejects(ctx.store.createChannel({ tenantId: t.id, name: 'caf\u00e9' }), { code: 'CHANNEL_NAME_TAKEN' });
      await assert.rejects(ctx.store.createChannel({ tenantId: t.id, name: 'cafe\u0301' }), { code: 'CHANNEL_NAME_TAKEN' });
    });
  });
}
