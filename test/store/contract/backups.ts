import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAppError } from '../../../src/errors/app-error.ts';
import type { ContractContext } from './support.ts';

/** Backups as the catalog records them. */
export function backupContract(ctx: ContractContext): void {
  describe('backups', () => {
    test('backups of one channel in one second: one is recorded, every other is BACKUP_EXISTS (found by the crash worker, which raced two)', async () => {
      const tenant = await ctx.tenant('Backups');
      const channel = await ctx.store.createChannel({ tenantId: tenant.id, name: 'b' });
      const backup = { channelId: channel.id, timestamp: '20260101_000000', createdBy: null, createdAt: Date.now() };
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => ctx.store.files.createBackup(backup)));
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected')
          assert.ok(isAppError(outcome.reason) && outcome.reason.code === 'BACKUP_EXISTS', String(outcome.reason));
      }
      assert.equal((await ctx.store.files.listBackups(channel.id, { limit: 10 })).items.length, 1);
    });
  });
}
