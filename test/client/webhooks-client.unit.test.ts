import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  type CreatedWebhook,
  createClient,
  fromViemAccount,
  HELD_OPERATIONS,
  HeldForApproval,
  PERMISSIONS,
  ProblemError,
  type Proposal,
  paginate,
  type RotatedWebhookSecret,
  TENANT_AUDIT_ACTIONS,
  type WalletAdminClient,
  type Webhook,
  type WebhookDelivery,
  type WebhookTestResult,
} from '../../src/client/index.ts';
import { newWallet } from '../helpers/wallets.ts';

/*
 * The client's webhook calls against a stand-in for the service: a node:http server that records
 * each request and answers canned JSON. What is checked is what the client sends (method, path,
 * query, body, signed-in headers) and how it reads the answers, not the service.
 */

interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Answer {
  status: number;
  body?: unknown;
  contentType?: string;
}

const webhook: Webhook = {
  id: 'wh_1',
  url: 'https://***:***@receiver.example/hooks?token=***',
  types: ['file.uploaded'],
  channels: ['chn_1'],
  folders: [],
  results: ['ok', 'failed'],
  paused: false,
  state: 'active',
  stoppedReason: null,
  createdBy: 'adm_1',
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  secretRotated: null,
  lowWaterSeq: 4,
  headSeq: 7,
  lastDelivery: { at: '2025-01-01T00:01:00.000Z', status: 'delivered', httpStatus: 204 },
};

const delivery: WebhookDelivery = {
  id: 'dl_1',
  eventId: 'evt_1',
  type: 'file.uploaded',
  seq: 5,
  channelId: 'chn_1',
  status: 'dead',
  attempts: 8,
  httpStatus: 500,
  error: 'HTTP 500',
  latencyMs: 120,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T02:00:00.000Z',
  nextAttempt: null,
};

/** Enough of a proposal for the client, which reads its id, count and summary into HeldForApproval's message. */
const proposal = {
  id: 'prp_1',
  operation: 'webhook.change',
  status: 'pending',
  required: 2,
  summary: 'Change webhook wh_1',
} satisfies Partial<Proposal>;

describe('the webhook calls of the client', () => {
  const requests: Recorded[] = [];
  const answers = new Map<string, Answer>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const recorded: Recorded = {
        method: request.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      // The raw path: pathname would show a percent-encoded slash the same, and it must stay encoded.
      const rawPath = (request.url ?? '/').split('?')[0]!;
      const answer: Answer =
        rawPath === '/api/auth/nonce'
          ? { status: 200, body: { nonce: 'abcdefgh12345678', expiresAt: '2099-01-01T00:00:00.000Z' } }
          : (answers.get(`${recorded.method} ${rawPath}`) ?? {
              status: 404,
              contentType: 'application/problem+json',
              body: { type: 'about:blank', title: 'Not Found', status: 404, detail: 'No such webhook', code: 'NOT_FOUND' },
            });
      if (rawPath !== '/api/auth/nonce') requests.push(recorded);
      response.writeHead(answer.status, answer.body === undefined ? {} : { 'Content-Type': answer.contentType ?? 'application/json' });
      response.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
    });
  });
  let client: WalletAdminClient;
  let nonces = 0;

  /** The one request the call made, after checking it went signed in. */
  const only = (): Recorded => {
    assert.equal(requests.length, 1, requests.map((r) => `${r.method} ${r.path}`).join(', '));
    const [request] = requests;
    for (const name of ['x-wal', 'x-sig', 'x-mes']) assert.ok(request!.headers[name], `${name} is sent`);
    return request!;
  };

  before(async () => {
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const counting: typeof fetch = (input, init) => {
      if (String(input).endsWith('/api/auth/nonce')) nonces++;
      return fetch(input, init);
    };
    client = createClient({ baseUrl, signer: fromViemAccount(newWallet().account), fetch: counting });
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  beforeEach(() => {
    requests.length = 0;
    answers.clear();
  });

  test('createWebhook posts the new webhook as JSON, names in NFC, and answers it with its secret', async () => {
    const created: CreatedWebhook = { ...webhook, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
    answers.set('POST /api/webhooks', { status: 201, body: created });
    const answer = await client.createWebhook({
      url: 'https://user:pass@receiver.example/hooks?token=abc',
      types: ['file.uploaded'],
      channels: ['Cafe\u0301'],
      folders: ['Re\u0301sume\u0301s'],
      results: ['ok', 'failed'],
      from: 'start',
    });
    assert.deepEqual(answer, created);
    const request = only();
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/api/webhooks');
    assert.match(String(request.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(request.body), {
      url: 'https://user:pass@receiver.example/hooks?token=abc',
      types: ['file.uploaded'],
      channels: ['Café'],
      folders: ['Résumés'],
      results: ['ok', 'failed'],
      from: 'start',
    });
    // Only what was given goes: the service applies its own defaults to the rest.
    requests.length = 0;
    await client.createWebhook({ url: 'https://receiver.example/' });
    assert.deepEqual(JSON.parse(only().body), { url: 'https://receiver.example/' });
    assert.equal(nonces, 1, 'the client signed in once for every call');
  });

  test('listWebhooks asks a page (limit and cursor only when given), and paginate follows next', async () => {
    answers.set('GET /api/webhooks', { status: 200, body: { items: [webhook], next: null } });
    assert.deepEqual(await client.listWebhooks(), { items: [webhook], next: null });
    assert.deepEqual(only().query, {});
    requests.length = 0;
    await client.listWebhooks({ limit: 2, cursor: 'c1' });
    assert.deepEqual(only().query, { limit: '2', cursor: 'c1' });
    requests.length = 0;
    const all: Webhook[] = [];
    let page = 0;
    answers.set('GET /api/webhooks', { status: 200, body: { items: [webhook], next: 'c2' } });
    for await (const item of paginate((request) => {
      if (page++ === 1) answers.set('GET /api/webhooks', { status: 200, body: { items: [{ ...webhook, id: 'wh_2' }], next: null } });
      return client.listWebhooks(request);
    })) {
      all.push(item);
    }
    assert.deepEqual(
      all.map((item) => item.id),
      ['wh_1', 'wh_2'],
    );
    assert.deepEqual(
      requests.map((request) => request.query),
      [{}, { cursor: 'c2' }],
    );
  });

  test("getWebhook reads one by id, its id one percent-encoded path segment; an unknown one is the service's problem", async () => {
    answers.set('GET /api/webhooks/wh_1', { status: 200, body: webhook });
    assert.deepEqual(await client.getWebhook('wh_1'), webhook);
    assert.equal(only().method, 'GET');
    requests.length = 0;
    await assert.rejects(client.getWebhook('wh 1/x'), (error) => error instanceof ProblemError && error.code === 'NOT_FOUND');
    assert.equal(only().path, '/api/webhooks/wh%201%2Fx');
    // A dot segment never goes: the URL would read it as the list's path.
    requests.length = 0;
    await assert.rejects(client.getWebhook('..'), TypeError);
    assert.equal(requests.length, 0);
  });

  test('updateWebhook patches with only the changes given', async () => {
    answers.set('PATCH /api/webhooks/wh_1', { status: 200, body: { ...webhook, paused: true, state: 'paused' } });
    const answer = await client.updateWebhook('wh_1', { paused: true, folders: ['e\u0301'] });
    assert.equal(answer.state, 'paused');
    const request = only();
    assert.equal(request.method, 'PATCH');
    assert.match(String(request.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(request.body), { paused: true, folders: ['é'] });
  });

  test('a change a policy holds (202) is HeldForApproval with its proposal, never the webhook', async () => {
    answers.set('PATCH /api/webhooks/wh_1', { status: 202, body: proposal });
    await assert.rejects(
      client.updateWebhook('wh_1', { url: 'https://elsewhere.example/' }),
      (error) => error instanceof HeldForApproval && error.proposal.id === 'prp_1' && error.proposal.operation === 'webhook.change',
    );
    answers.set('POST /api/webhooks', { status: 202, body: { ...proposal, operation: 'webhook.create' } });
    await assert.rejects(client.createWebhook({ url: 'https://receiver.example/' }), HeldForApproval);
    answers.set('DELETE /api/webhooks/wh_1', { status: 202, body: { ...proposal, operation: 'webhook.delete' } });
    await assert.rejects(client.deleteWebhook('wh_1'), HeldForApproval);
    answers.set('POST /api/webhooks/wh_1/rotate-secret', { status: 202, body: proposal });
    await assert.rejects(client.rotateWebhookSecret('wh_1'), HeldForApproval);
  });

  test('deleteWebhook sends DELETE and answers nothing on 204', async () => {
    answers.set('DELETE /api/webhooks/wh_1', { status: 204 });
    assert.equal(await client.deleteWebhook('wh_1'), undefined);
    const request = only();
    assert.equal(request.method, 'DELETE');
    assert.equal(request.path, '/api/webhooks/wh_1');
  });

  test('testWebhook and rotateWebhookSecret post with no body', async () => {
    const result: WebhookTestResult = { delivered: false, status: 503, latencyMs: 42, error: 'HTTP 503', excerpt: 'maintenance' };
    answers.set('POST /api/webhooks/wh_1/test', { status: 200, body: result });
    assert.deepEqual(await client.testWebhook('wh_1'), result);
    let request = only();
    assert.equal(request.body, '');
    assert.equal(request.headers['content-type'], undefined);

    requests.length = 0;
    const rotated: RotatedWebhookSecret = { id: 'wh_1', secret: 'whsec_new', previousSecretValidUntil: '2025-01-02T00:00:00.000Z' };
    answers.set('POST /api/webhooks/wh_1/rotate-secret', { status: 200, body: rotated });
    assert.deepEqual(await client.rotateWebhookSecret('wh_1'), rotated);
    request = only();
    assert.equal(request.method, 'POST');
    assert.equal(request.body, '');
  });

  test('listWebhookDeliveries filters by status and pages; retryWebhookDelivery posts to the delivery', async () => {
    answers.set('GET /api/webhooks/wh_1/deliveries', { status: 200, body: { items: [delivery], next: 'd2' } });
    assert.deepEqual(await client.listWebhookDeliveries('wh_1', { status: 'dead', limit: 10, cursor: 'd1' }), {
      items: [delivery],
      next: 'd2',
    });
    assert.deepEqual(only().query, { status: 'dead', limit: '10', cursor: 'd1' });
    requests.length = 0;
    await client.listWebhookDeliveries('wh_1');
    assert.deepEqual(only().query, {});

    requests.length = 0;
    const retried: WebhookDelivery = { ...delivery, status: 'retrying', nextAttempt: '2025-01-01T02:00:01.000Z' };
    answers.set('POST /api/webhooks/wh_1/deliveries/dl_1/retry', { status: 200, body: retried });
    assert.deepEqual(await client.retryWebhookDelivery('wh_1', 'dl_1'), retried);
    const request = only();
    assert.equal(request.method, 'POST');
    assert.equal(request.body, '');
  });

  test("the lists a page offers hold the webhooks' operations, permission and audit actions", () => {
    for (const operation of ['webhook.create', 'webhook.change', 'webhook.delete'] as const) assert.ok(HELD_OPERATIONS.includes(operation));
    // And the tenant's own off-site target's (docs/offsite.md), which came after them.
    assert.ok(HELD_OPERATIONS.includes('offsite.change') && PERMISSIONS.includes('offsite:manage'));
    assert.ok(TENANT_AUDIT_ACTIONS.includes('offsite.change'));
    assert.ok(PERMISSIONS.includes('webhooks:manage'));
    for (const action of ['webhook.create', 'webhook.change', 'webhook.delete'] as const) assert.ok(TENANT_AUDIT_ACTIONS.includes(action));
  });
});
