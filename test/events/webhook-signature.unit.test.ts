import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../src/client/index.ts';
import { newWebhookSecret, signWebhook } from '../../src/events/webhook-signature.ts';

/*
 * Both ends of Standard Webhooks (standardwebhooks.com) against the spec's reference library, so
 * that a receiver may use either ours or theirs: what the service signs verifies with
 * `standardwebhooks`, and what `standardwebhooks` signs verifies with the client's verifyWebhook.
 */

const nowSeconds = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ id: 'evt_1', type: 'file.uploaded', tenantId: 't_1', time: '2025-01-01T00:00:00.000Z', data: { size: 3 } });
const rejects = (promise: Promise<unknown>, message: RegExp) =>
  assert.rejects(promise, (error) => error instanceof WebhookVerificationError && message.test(error.message));

/** Headers as the reference library signs them (its sign takes a Date, and answers the signature only). */
function referenceHeaders(secret: string, id: string, timestampSeconds: number, payload: string) {
  const signature = new Webhook(secret).sign(id, new Date(timestampSeconds * 1000), payload);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signature };
}

describe('webhook secrets and signatures (server)', () => {
  test('a new secret is whsec_ and the base64 of 32 random bytes', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
    assert.notEqual(newWebhookSecret(), secret);
  });

  test("the spec's known answer", () => {
    const headers = signWebhook(
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    assert.deepEqual(headers, {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  test('what signWebhook signs verifies with standardwebhooks, which answers the event', () => {
    const secret = newWebhookSecret();
    const headers = signWebhook([secret], 'evt_1', nowSeconds(), body);
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    // A non-ASCII body: the HMAC is of its UTF-8 bytes on both sides.
    const text = JSON.stringify({ data: { folder: 'Überweisungen', filename: '請求書.pdf' } });
    assert.deepEqual(new Webhook(secret).verify(text, signWebhook([secret], 'evt_2', nowSeconds(), text)), JSON.parse(text));
  });

  test('during a rotation each secret signs, and either verifies', () => {
    const [next, previous] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signWebhook([next, previous], 'evt_1', nowSeconds(), body);
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    for (const secret of [next, previous]) assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers), /No matching signature/);
    // The same secret twice (a rotation to itself) signs once.
    assert.equal(signWebhook([next, next], 'evt_1', nowSeconds(), body)['webhook-signature'].split(' ').length, 1);
  });

  test('a malformed secret, no secret, a bad id or timestamp are refused before anything is signed', () => {
    const valid = newWebhookSecret();
    const malformed = [
      valid.slice(6), // no prefix
      'whsec_',
      'whsec_not base64!',
      `whsec_${Buffer.alloc(16).toString('base64')}`, // 16 bytes: shorter than the spec allows
      `whsec_${Buffer.alloc(65).toString('base64')}`,
      `${valid.slice(0, -1)}`, // padding cut off: not the base64 that was made
    ];
    for (const secret of malformed) {
      assert.throws(() => signWebhook([valid, secret], 'evt_1', 1, body), /A webhook secret is "whsec_" and the base64/, secret);
    }
    // The secret never appears in the message, which may be logged.
    assert.throws(
      () => signWebhook(['whsec_leaky!'], 'evt_1', 1, body),
      (error: Error) => !error.message.includes('leaky'),
    );
    assert.throws(() => signWebhook([], 'evt_1', 1, body), /at least one secret/);
    for (const id of ['', 'evt 1', 'evt\r\n1']) assert.throws(() => signWebhook([valid], id, 1, body), /webhook id/);
    for (const timestamp of [1.5, -1, Number.NaN, 2 ** 53])
      assert.throws(() => signWebhook([valid], 'evt_1', timestamp, body), /timestamp/);
  });
});

describe('verifyWebhook (client)', () => {
  test('what standardwebhooks signs verifies, from plain headers of any case or a Headers', async () => {
    const secret = newWebhookSecret();
    const timestamp = nowSeconds();
    const headers = referenceHeaders(secret, 'msg_1', timestamp, body);
    assert.deepEqual(await verifyWebhook(secret, headers, body), JSON.parse(body));
    const mixedCase = {
      'Webhook-Id': headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'],
      'webhook-Signature': headers['webhook-signature'],
    };
    assert.deepEqual(await verifyWebhook(secret, mixedCase, body), JSON.parse(body));
    assert.deepEqual(await verifyWebhook(secret, new Headers(headers), body), JSON.parse(body));
  });

  test('what signWebhook signs verifies, the secret with or without its whsec_ prefix', async () => {
    const secret = newWebhookSecret();
    const headers = signWebhook([secret], 'evt_1', nowSeconds(), body);
    assert.deepEqual(await verifyWebhook(secret, headers, body), JSON.parse(body));
    assert.deepEqual(await verifyWebhook(secret.slice('whsec_'.length), headers, body), JSON.parse(body));
  });

  test('a body given as bytes verifies as its text does', async () => {
    const secret = newWebhookSecret();
    const text = JSON.stringify({ data: { folder: 'Überweisungen', filename: '請求書.pdf' } });
    const headers = signWebhook([secret], 'evt_1', nowSeconds(), text);
    assert.deepEqual(await verifyWebhook(secret, headers, new TextEncoder().encode(text)), JSON.parse(text));
    assert.deepEqual(await verifyWebhook(secret, headers, Buffer.from(text)), JSON.parse(text));
    // A view into a larger buffer (a framework's pooled chunk): only its own bytes count.
    const pooled = Buffer.concat([Buffer.from('xx'), Buffer.from(text), Buffer.from('yy')]).subarray(2, 2 + Buffer.byteLength(text));
    assert.deepEqual(await verifyWebhook(secret, headers, pooled), JSON.parse(text));
    assert.deepEqual(new Webhook(secret).verify(new TextEncoder().encode(text), headers), JSON.parse(text));
  });

  test('two signatures (a rotation) verify with either secret, and not with a third', async () => {
    const [next, previous] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signWebhook([next, previous], 'evt_1', nowSeconds(), body);
    for (const secret of [next, previous]) assert.deepEqual(await verifyWebhook(secret, headers, body), JSON.parse(body));
    await rejects(verifyWebhook(newWebhookSecret(), headers, body), /no matching signature \(of 2 v1 signatures\)/);
    // Signatures sent as two header lines, which fetch and Node join with ", ".
    const [first, second] = headers['webhook-signature'].split(' ');
    const lines = new Headers({ 'webhook-id': 'evt_1', 'webhook-timestamp': headers['webhook-timestamp'] });
    lines.append('webhook-signature', first!);
    lines.append('webhook-signature', second!);
    assert.deepEqual(await verifyWebhook(previous, lines, body), JSON.parse(body));
    assert.deepEqual(await verifyWebhook(previous, { ...headers, 'webhook-signature': [first!, second!] }, body), JSON.parse(body));
  });

  test('signatures of other versions are skipped', async () => {
    const secret = newWebhookSecret();
    const headers = signWebhook([secret], 'evt_1', nowSeconds(), body);
    const signature = `v1a,${headers['webhook-signature'].slice(3)} v2,abc ${headers['webhook-signature']}`;
    assert.deepEqual(await verifyWebhook(secret, { ...headers, 'webhook-signature': signature }, body), JSON.parse(body));
    await rejects(
      verifyWebhook(secret, { ...headers, 'webhook-signature': `v1a,${headers['webhook-signature'].slice(3)}` }, body),
      /no v1 signature/,
    );
  });

  test('a tampered body, id or timestamp, or a wrong secret, match no signature', async () => {
    const secret = newWebhookSecret();
    const timestamp = nowSeconds();
    const headers = signWebhook([secret], 'evt_1', timestamp, body);
    await rejects(verifyWebhook(secret, headers, body.replace('"size":3', '"size":4')), /no matching signature/);
    await rejects(verifyWebhook(secret, headers, `${body} `), /no matching signature/);
    await rejects(verifyWebhook(secret, { ...headers, 'webhook-id': 'evt_2' }, body), /no matching signature/);
    await rejects(verifyWebhook(secret, { ...headers, 'webhook-timestamp': String(timestamp - 1) }, body), /no matching signature/);
    await rejects(verifyWebhook(newWebhookSecret(), headers, body), /no matching signature/);
    // A signature cut short, or not base64 at all, matches nothing either.
    await rejects(
      verifyWebhook(secret, { ...headers, 'webhook-signature': headers['webhook-signature'].slice(0, -4) }, body),
      /no matching/,
    );
    await rejects(verifyWebhook(secret, { ...headers, 'webhook-signature': 'v1,***' }, body), /no matching signature/);
  });

  test('a timestamp outside the tolerance is too old or too new', async () => {
    const secret = newWebhookSecret();
    const timestamp = 1_700_000_000;
    const headers = signWebhook([secret], 'evt_1', timestamp, body);
    const at = (seconds: number) => () => seconds * 1000 + 999;
    assert.deepEqual(await verifyWebhook(secret, headers, body, { now: at(timestamp + 300) }), JSON.parse(body));
    assert.deepEqual(await verifyWebhook(secret, headers, body, { now: at(timestamp - 300) }), JSON.parse(body));
    await rejects(verifyWebhook(secret, headers, body, { now: at(timestamp + 301) }), /too old \(301 s ago, at most 300 s/);
    await rejects(verifyWebhook(secret, headers, body, { now: at(timestamp - 301) }), /too new \(301 s ahead/);
    await rejects(verifyWebhook(secret, headers, body, { now: at(timestamp + 61), toleranceSeconds: 60 }), /too old/);
    // By default, against the clock: a delivery of 2023 is long too old.
    await rejects(verifyWebhook(secret, headers, body), /too old/);
    // The reference library refuses it too.
    assert.throws(() => new Webhook(secret).verify(body, headers), /Message timestamp too old/);
    await rejects(verifyWebhook(secret, { ...headers, 'webhook-timestamp': '1700000000.5' }, body), /not a whole number of seconds/);
    await assert.rejects(verifyWebhook(secret, headers, body, { toleranceSeconds: -1 }), TypeError);
  });

  test('a missing header, or one given twice, is named', async () => {
    const secret = newWebhookSecret();
    const headers = signWebhook([secret], 'evt_1', nowSeconds(), body);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      await rejects(verifyWebhook(secret, { ...headers, [name]: undefined }, body), new RegExp(`missing header ${name}$`));
      await rejects(verifyWebhook(secret, { ...headers, [name]: '' }, body), new RegExp(`missing header ${name}$`));
      const without = new Headers(headers);
      without.delete(name);
      await rejects(verifyWebhook(secret, without, body), new RegExp(`missing header ${name}$`));
    }
    await rejects(
      verifyWebhook(secret, { ...headers, 'webhook-id': ['evt_1', 'evt_2'] }, body),
      /header webhook-id holds more than one value/,
    );
  });

  test('a malformed secret is named, never shown', async () => {
    const headers = signWebhook([newWebhookSecret()], 'evt_1', nowSeconds(), body);
    for (const secret of ['', 'whsec_', 'whsec_not base64!', 'whsec_%%%%']) {
      await rejects(verifyWebhook(secret, headers, body), /^malformed secret: expected whsec_ and base64$/);
    }
  });

  test('a signed body that is not JSON is refused', async () => {
    const secret = newWebhookSecret();
    await rejects(verifyWebhook(secret, signWebhook([secret], 'evt_1', nowSeconds(), 'not json'), 'not json'), /not JSON/);
    const latin1 = new Uint8Array([0x7b, 0xff, 0x7d]);
    const headers = referenceHeaders(secret, 'evt_1', nowSeconds(), '');
    headers['webhook-signature'] = new Webhook(secret).sign('evt_1', new Date(Number(headers['webhook-timestamp']) * 1000), latin1);
    await rejects(verifyWebhook(secret, headers, latin1), /not JSON/);
  });
});
