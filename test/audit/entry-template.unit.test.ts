import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson } from '../../src/audit-chain/canonical-json.ts';
import { chainEntry, unhashedEntry } from '../../src/audit-chain/chain-entry.ts';
import { entryTemplate } from '../../src/audit-chain/entry-template.ts';
import type { AuditEvent } from '../../src/model/audit.ts';

/**
 * The template PostgreSQL hashes an entry from (audit-append-postgres.ts): with the head's seq and
 * hash put in, exactly the canonical JSON the service hashes, or no template at all.
 */

const event = (over: Partial<AuditEvent> = {}): AuditEvent =>
  ({
    id: 'ev_1',
    tenantId: 't_1',
    channelId: 'c_1',
    adminId: 'a_1',
    action: 'upload',
    folder: 'docs',
    filename: 'ünïcode "quoted" \\ file.txt',
    backupTimestamp: null,
    versionId: null,
    at: null,
    result: 'ok',
    code: null,
    sha256: 'ab'.repeat(32),
    createdAt: 1_765_000_000_123,
    operationId: null,
    operation: null,
    targetAdminId: null,
    change: null,
    ...over,
  }) as AuditEvent;

const filled = (e: AuditEvent, seq: number, prevHash: string) => {
  const template = entryTemplate(e);
  assert.ok(template);
  const [before, between, after] = template.parts;
  const [first, second] = template.first === 'prevHash' ? [prevHash, String(seq)] : [String(seq), prevHash];
  return `${before}${first}${between}${second}${after}`;
};

test('with the seq and the hash before it put in, the template is the canonical JSON the entry hashes', () => {
  for (const [e, seq, prev] of [
    [event(), 1, '0'.repeat(64)],
    [event({ proposalId: 'p_1', operator: 'ops' } as Partial<AuditEvent>), 9_007_199_254_740, 'cd'.repeat(32)],
    [event({ filename: '4503599627' }), 42, 'ef'.repeat(32)],
  ] as const) {
    assert.equal(filled(e, seq, prev), canonicalJson(unhashedEntry(e, seq, prev)));
    assert.ok(chainEntry(e, seq, prev).hash.length === 64);
  }
});

test('an event whose members spell a mark has no template: the service hashes it itself', () => {
  assert.equal(entryTemplate(event({ filename: 'prevHash-mark-cannot-be-a-hash-7d1f0c2e' })), undefined);
  assert.equal(entryTemplate(event({ folder: String(2 ** 52 + 1) })), undefined);
});
