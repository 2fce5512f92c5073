import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAppError } from '../../../src/errors/app-error.ts';
import { BACKUP_ORIGINS } from '../../../src/model/backups.ts';
import type { ContractContext } from './support.ts';

/** Backups as the catalog records them. */
export function backupContract(ctx: ContractContext): void {
  describe('backups', () => {
    test('backups of one channel in one second: one is recorded, every other is BACKUP_EXISTS (found by the crash worker, which raced two)', async () => {
      const tenant = await ctx.tenant('Backups');
      const channel = await ctx.store.createChannel({ tenantId: tenant.id, name: 'b' });
      const backup = {
        channelId: channel.id,
        timestamp: '20260101_000000',
        createdBy: null,
        origin: 'schedule' as const,
        createdAt: Date.now(),
      };
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => ctx.store.files.createBackup(backup)));
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected')
          assert.ok(isAppError(outcome.reason) && outcome.reason.code === 'BACKUP_EXISTS', String(outcome.reason));
      }
      assert.equal((await ctx.store.files.listBackups(channel.id, { limit: 10 })).items.length, 1);
    });

    test('a backup keeps what made it (origin) and who (createdBy), as listed and as read alone', async () => {
      const tenant = await ctx.tenant('BackupOrigins');
      const channel = await ctx.store.createChannel({ tenantId: tenant.id, name: 'b' });
      for (const [i, origin] of BACKUP_ORIGINS.entries()) {
        const createdBy = origin === 'schedule' || origin === 'cli' ? null : 'adm_someone';
        await ctx.store.files.createBackup({
          channelId: channel.id,
          timestamp: `2026010${i + 1}_000000`,
          createdBy,
          origin,
          createdAt: Date.now(),
        });
      }
      const listed = (await ctx.store.files.listBackups(channel.id, { limit: 10 })).items.map((b) => [b.origin, b.createdBy]);
      assert.deepEqual(listed, [
        ['demo', 'adm_someone'],
        ['restore', 'adm_someone'],
        ['cli', null],
        ['schedule', null],
        ['api', 'adm_someone'],
      ]);
      assert.equal((await ctx.store.files.getBackup(channel.id, '20260103_000000'))?.origin, 'cli');
    });

    test("backups page newest first: each page goes on from the previous page's last backup", async () => {
      const tenant = await ctx.tenant('BackupPages');
      const channel = await ctx.store.createChannel({ tenantId: tenant.id, name: 'b' });
      const timestamps = ['20260101_000000', '20260102_000000', '20260103_000000', '20260104_000000', '20260105_000000'];
      for (const timestamp of timestamps)
        await ctx.store.files.createBackup({
          channelId: channel.id,
          timestamp,
          createdBy: null,
          origin: 'schedule' as const,
          createdAt: Date.now(),
        });
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await ctx.store.files.listBackups(channel.id, { limit: 2, cursor });
        pages.push(page.items.map((b) => b.timestamp));
        cursor = page.next ?? undefined;
      } while (cursor !== undefined);
      assert.deepEqual(pages, [['20260105_000000', '20260104_000000'], ['20260103_000000', '20260102_000000'], ['20260101_000000']]);
    });
  });
}
