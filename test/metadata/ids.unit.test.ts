import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newAdminId, newChannelId, newTenantId } from '../../src/model/ids.ts';

test('ids carry their kind and 26 lowercase base32 characters', () => {
  assert.match(newTenantId(), /^t_[0-9a-hjkmnp-tv-z]{26}$/);
  assert.match(newAdminId(), /^adm_[0-9a-hjkmnp-tv-z]{26}$/);
  assert.match(newChannelId(), /^chn_[0-9a-hjkmnp-tv-z]{26}$/);
});

test('ids are random: no repeats, no order, every character in use', () => {
  const ids = Array.from({ length: 10_000 }, newAdminId);
  assert.equal(new Set(ids).size, ids.length);
  assert.notDeepEqual([...ids].sort(), ids, 'creation order is not id order');
  const used = new Set(ids.flatMap((id) => [...id.slice(4)]));
  assert.equal(used.size, 32);
});
