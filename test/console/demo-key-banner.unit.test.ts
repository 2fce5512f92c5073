import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PUBLISHED_DEMO_WALLET } from '../../src/console/views/demo-key-banner.tsx';
import { DEMO_WALLET } from '../../src/demo/demo-seed.ts';

test("the console's banner warns of the wallet the demo seeds, whose key is published", () => {
  assert.equal(PUBLISHED_DEMO_WALLET, DEMO_WALLET);
});
