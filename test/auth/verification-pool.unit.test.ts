import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { checkMessage, type MessageCheckInput } from '../../src/auth/message-check.ts';
import { createAddressRecoverer } from '../../src/auth/signature/address-recoverer.ts';
import { VerificationPool } from '../../src/auth/verification-pool.ts';
import { loadConfig } from '../../src/config/config.ts';
import { newWallet, signIn } from '../helpers/wallets.ts';

const DOMAIN = 'admin.example.com';
const config = loadConfig({ AUTH_DOMAINS: DOMAIN }).auth;
const recoverer = createAddressRecoverer();
const inline = (input: MessageCheckInput) => checkMessage(input, config, recoverer);

describe('VerificationPool: new credentials checked on worker threads', () => {
  const errors: Error[] = [];
  const pool = new VerificationPool(2, config, inline, (error) => errors.push(error));
  after(() => pool.close());

  /** Valid sign-ins, and every kind of refusal a check makes: each must come back as the event loop would answer. */
  async function credentials(): Promise<MessageCheckInput[]> {
    const now = Date.now();
    const wallet = newWallet();
    const inputs: MessageCheckInput[] = [];
    const add = (h: Awaited<ReturnType<typeof signIn>>, changes: Partial<MessageCheckInput> = {}) =>
      inputs.push({ wal: h['X-WAL'], sig: h['X-SIG'], mes: h['X-MES'], now, contractWallets: false, ...changes });
    for (let i = 0; i < 30; i++) add(await signIn(wallet, DOMAIN, { nonce: `pooled${String(i).padStart(8, '0')}` }));
    const good = await signIn(wallet, DOMAIN);
    add(good, { sig: (await signIn(newWallet(), DOMAIN))['X-SIG'] }); // a valid signature by another key: no match
    add(good, { sig: `${good['X-SIG'].slice(0, 20)}zz` }); // malformed signature
    add(good, { mes: 'base64:***' }); // malformed encoding
    add(await signIn(wallet, 'elsewhere.example.com')); // another domain
    add(await signIn(wallet, DOMAIN, { issuedAt: new Date(now - 3 * 86_400_000) })); // beyond AUTH_MAX_AGE
    return inputs;
  }

  test('answers exactly what the event loop would: claims, hash and signer, or the refusal', async () => {
    const inputs = await credentials();
    // Asked together, in one turn of the event loop: one batch.
    const answers = await Promise.all(inputs.map((input) => pool.check(input)));
    assert.deepEqual(answers, inputs.map(inline));
    assert.equal(answers.filter((a) => a.ok && a.signer === inputs[0]!.wal.toLowerCase()).length, 30);
    assert.deepEqual(
      answers.filter((a) => !a.ok).map((a) => (a.ok ? '' : a.code)),
      ['AUTH_SIGNATURE_MALFORMED', 'AUTH_MESSAGE_MALFORMED', 'AUTH_DOMAIN_MISMATCH', 'AUTH_MESSAGE_EXPIRED'],
    );
    assert.deepEqual(errors, []);
  });

  test('a worker that dies fails its unanswered checks and is replaced', async () => {
    const [input] = await credentials();
    const expected = inline(input!);
    assert.deepEqual(await pool.check(input!), expected);
    const workers = (pool as unknown as { workers: Worker[] }).workers;
    const [first] = workers;
    // Two batches (two turns): with two workers, one goes to the worker that is killed.
    // The worker dies holding a batch it never answers. The batch does not reach it: a thread
    // terminated in the middle of a native call (keccak, secp256k1) can abort the whole process (an
    // N-API fatal error, seen once in CI), which no pool can prevent; the pool's part is the same.
    first!.postMessage = () => undefined;
    const pending = [pool.check(input!)];
    await new Promise((resolve) => setImmediate(resolve));
    pending.push(pool.check(input!));
    await first!.terminate();
    // None hangs, none is answered wrongly: each is the answer, or a clear failure to retry.
    for (const outcome of await Promise.allSettled(pending)) {
      if (outcome.status === 'fulfilled') assert.deepEqual(outcome.value, expected);
      else assert.equal((outcome.reason as { code?: string }).code, 'INTERNAL_ERROR');
    }
    assert.ok(!workers.includes(first!), 'the dead worker was replaced');
    assert.equal(workers.length, 2);
    assert.deepEqual(await pool.check(input!), expected, 'and checks go on');
  });

  test('a worker holds one batch at a time: what is asked meanwhile goes to it in one message when it answers', async () => {
    const single = new VerificationPool(1, config, inline, (error) => errors.push(error));
    const inputs = (await credentials()).slice(0, 4);
    const posted: number[] = [];
    const first = single.check(inputs[0]!);
    const worker = (single as unknown as { workers: Worker[] }).workers[0]!;
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (batch: string) => {
      posted.push(batch.split('\0').length / 6);
      post(batch);
    };
    // Each asked in a turn of its own, while the worker (still starting: a hundred milliseconds
    // and more) holds the first batch.
    const later: (Promise<unknown> | unknown)[] = [];
    for (const input of inputs.slice(1)) {
      await new Promise((resolve) => setImmediate(resolve));
      later.push(single.check(input));
    }
    assert.deepEqual(await Promise.all([first, ...later]), inputs.map(inline));
    assert.deepEqual(posted, [1, 3], 'one batch of the first check, then one of the three asked while it was checked');
    // Closing while checks wait for the busy worker: they are answered, not failed.
    const waiting = [single.check(inputs[0]!)];
    await new Promise((resolve) => setImmediate(resolve));
    waiting.push(single.check(inputs[1]!));
    await single.close();
    assert.deepEqual(await Promise.all(waiting), [inline(inputs[0]!), inline(inputs[1]!)]);
    assert.deepEqual(errors, []);
  });

  test('once closed, it checks on the event loop', async () => {
    const closed = new VerificationPool(1, config, inline, () => undefined);
    await closed.close();
    const [input] = await credentials();
    assert.deepEqual(closed.check(input!), inline(input!));
  });
});
