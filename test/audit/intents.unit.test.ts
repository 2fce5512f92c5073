import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AuditChainEntry, chainEntry, ZERO_HASH } from '../../src/audit-chain/chain-entry.ts';
import { verifyExport } from '../../src/audit-chain/verify-export.ts';
import type { AuditEvent, AuditIntents } from '../../src/model/audit.ts';
import { newWallet } from '../helpers/wallets.ts';
import { approvalBy, intentTypedData, signedIntents } from './intent-vectors.ts';

/** The verifier's checks of intents (docs/audit-chain.md, "Intents"), on chains built here with real signatures. */

const baseEvent = (id: string, intents: AuditIntents | null): AuditEvent => ({
  id,
  tenantId: 't_1',
  channelId: 'chn_1',
  adminId: 'adm_1',
  action: 'restore',
  folder: null,
  filename: null,
  backupTimestamp: null,
  versionId: null,
  at: null,
  result: 'ok',
  code: null,
  sha256: null,
  createdAt: 1_780_000_000_000,
  operationId: null,
  operation: null,
  targetAdminId: null,
  change: null,
  intents,
  operator: null,
  proposalId: null,
});

/** A two-entry chain whose second entry carries `intents`, hashed properly: only the intents can fail. */
function chainWith(intents: AuditIntents): string[] {
  const first = chainEntry(baseEvent('aud_1', null), 1, ZERO_HASH);
  const second: AuditChainEntry = chainEntry(baseEvent('aud_2', intents), 2, first.hash);
  return [JSON.stringify(first), JSON.stringify(second)];
}

describe('intents in the audit chain', () => {
  test('two distinct admins signing a 2-of-n intent: both signatures recover, the quorum is met', async () => {
    const summary = await verifyExport(chainWith(await signedIntents(2, 2)));
    assert.equal(summary.ok, true, JSON.stringify(summary.failure));
    assert.equal(summary.intents.verifiedSignatures, 2);
  });

  test('a signature over other typed data fails, naming the entry and the approval', async () => {
    const intents = await signedIntents(2, 2);
    // The second admin signed another plan: its signature recovers to some other address.
    intents.approvals[1] = await approvalBy(newWallet(), 'adm_signer1', intentTypedData({ planEtag: '"p2"' }));
    const summary = await verifyExport(chainWith(intents));
    assert.equal(summary.ok, false);
    assert.equal(summary.failure?.seq, 2);
    assert.equal(summary.failure?.id, 'aud_2');
    assert.match(summary.failure!.reason, /approval 2 \(adm_signer1\): signed by 0x[0-9a-fA-F]{40}, not by its wallet/);
  });

  test('a signature flipped by one bit fails', async () => {
    const intents = await signedIntents(2, 2);
    const signature = intents.approvals[0]!.signature;
    intents.approvals[0]!.signature =
      `${signature.slice(0, 10)}${signature[10] === '0' ? '1' : '0'}${signature.slice(11)}` as `0x${string}`;
    const summary = await verifyExport(chainWith(intents));
    assert.equal(summary.ok, false);
    assert.match(summary.failure!.reason, /approval 1/);
  });

  test('an unmet quorum fails: one signer of a 2-of-n, or one admin signing twice with two wallets', async () => {
    const one = await verifyExport(chainWith(await signedIntents(1, 2)));
    assert.equal(one.ok, false);
    assert.match(one.failure!.reason, /quorum not met: 1 distinct admin approved, 2 required/);

    const typedData = intentTypedData();
    const twice: AuditIntents = {
      proposalId: 'prp_x',
      operation: 'channel.restore',
      required: 2,
      permission: 'files:restore',
      typedData,
      approvals: [await approvalBy(newWallet(), 'adm_same', typedData), await approvalBy(newWallet(), 'adm_same', typedData)],
    };
    const same = await verifyExport(chainWith(twice));
    assert.equal(same.ok, false);
    assert.match(same.failure!.reason, /quorum not met: 1 distinct admin/);
  });

  test('a contract wallet approval is reported as needing a chain lookup (EIP-1271), not failed', async () => {
    const intents = await signedIntents(1, 2);
    intents.approvals.push({ adminId: 'adm_safe', wallet: `0x${'5'.repeat(40)}`, signature: '0x1234', kind: 'contract' });
    const summary = await verifyExport(chainWith(intents));
    assert.equal(summary.ok, true, JSON.stringify(summary.failure));
    assert.equal(summary.intents.needChainLookup, 1);
    assert.equal(summary.intents.quorumsNeedingChainLookup, 1);
  });

  test('intents edited after the fact fail as an edit, before any signature is looked at', async () => {
    const lines = chainWith(await signedIntents(2, 2));
    const second = JSON.parse(lines[1]!);
    second.intents.required = 1;
    const summary = await verifyExport([lines[0]!, JSON.stringify(second)]);
    assert.equal(summary.ok, false);
    assert.match(summary.failure!.reason, /edited/);
  });
});
