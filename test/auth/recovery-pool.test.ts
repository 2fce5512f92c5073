import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { createAddressRecoverer } from '../../src/auth/signature/address-recoverer.ts';
import { parseRecoverableSignature } from '../../src/auth/signature/parse-signature.ts';
import { recoverPersonalSigner } from '../../src/auth/signature/recover-personal-signer.ts';
import { RecoveryPool } from '../../src/auth/signature/recovery-pool.ts';
import { newWallet } from '../helpers/wallets.ts';

const recoverer = createAddressRecoverer();
const inline = (message: Uint8Array, signature: ReturnType<typeof parseRecoverableSignature>) =>
  recoverPersonalSigner(recoverer, signature, message);

describe('RecoveryPool: signers recovered on worker threads', () => {
  const errors: Error[] = [];
  const pool = new RecoveryPool(2, inline, (error) => errors.push(error));
  after(() => pool.close());

  test('answers what the event loop would: every signer of a batch, and none for a signature no key made', async () => {
    const wallets = [newWallet(), newWallet(), newWallet()];
    const cases = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const wallet = wallets[i % 3]!;
        const text = `message ${i} ${'é'.repeat(i % 7)}`;
        const signature = parseRecoverableSignature(await wallet.account.signMessage({ message: text }));
        // Every fifth is signed over other bytes: a valid signature of another message.
        const message = new TextEncoder().encode(i % 5 === 0 ? `${text}!` : text);
        return { message, signature, expected: i % 5 === 0 ? inline(message, signature) : wallet.address.toLowerCase() };
      }),
    );
    // Asked together, in one turn of the event loop: one batch.
    const answers = await Promise.all(cases.map(({ message, signature }) => pool.recoverSigner(message, signature)));
    assert.deepEqual(
      answers,
      cases.map((c) => c.expected),
    );
    assert.ok(answers.every((answer, i) => (i % 5 === 0 ? answer !== wallets[i % 3]!.address.toLowerCase() : true)));
    assert.deepEqual(errors, []);
  });

  test('a worker that dies fails its unanswered recoveries and is replaced', async () => {
    const wallet = newWallet();
    const message = new TextEncoder().encode('after a crash');
    const signature = parseRecoverableSignature(await wallet.account.signMessage({ message: 'after a crash' }));
    assert.equal(await pool.recoverSigner(message, signature), wallet.address.toLowerCase());
    const workers = (pool as unknown as { workers: Worker[] }).workers;
    const [first] = workers;
    // Two batches (two turns): with two workers, one of them goes to the worker that is killed.
    const pending = [pool.recoverSigner(message, signature)];
    await new Promise((resolve) => setImmediate(resolve));
    pending.push(pool.recoverSigner(message, signature));
    await first!.terminate();
    // None hangs, none is answered wrongly: each is the signer, or a clear failure to retry.
    for (const outcome of await Promise.allSettled(pending)) {
      if (outcome.status === 'fulfilled') assert.equal(outcome.value, wallet.address.toLowerCase());
      else assert.equal((outcome.reason as { code?: string }).code, 'INTERNAL_ERROR');
    }
    assert.ok(!workers.includes(first!), 'the dead worker was replaced');
    assert.equal(workers.length, 2);
    assert.equal(await pool.recoverSigner(message, signature), wallet.address.toLowerCase(), 'and recoveries go on');
  });

  test('once closed, it recovers on the event loop', async () => {
    const closed = new RecoveryPool(1, inline, () => undefined);
    await closed.close();
    const wallet = newWallet();
    const signature = parseRecoverableSignature(await wallet.account.signMessage({ message: 'closed' }));
    assert.equal(closed.recoverSigner(new TextEncoder().encode('closed'), signature), wallet.address.toLowerCase());
  });
});
