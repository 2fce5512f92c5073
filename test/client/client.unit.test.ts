import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import { Wallet } from 'ethers';
import { CLIENT_BUILD_OPTIONS } from '../../scripts/bundles.mjs';
import { parseSiweMessage } from '../../src/auth/siwe/siwe-message.ts';
import {
  createClient,
  type Eip1193Provider,
  fromEip1193,
  fromEthersSigner,
  fromViemAccount,
  HeldForApproval,
  HttpError,
  ProblemError,
  paginate,
  type SignedIn,
  type WalletSigner,
} from '../../src/client/index.ts';
import { nextSecond, sha256 } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, type TestWallet } from '../helpers/wallets.ts';

/** The global fetch, counting what the client asks of the service: nonces are signings. */
function countingFetch() {
  const paths: string[] = [];
  const counted: typeof fetch = (input, init) => {
    paths.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
    return fetch(input, init);
  };
  return { fetch: counted, nonces: () => paths.filter((path) => path === '/api/auth/nonce').length, paths };
}

/** What the service received in X-MES, decoded: the message the wallet signed. */
function signedMessage(headers: { 'X-MES': string }): string {
  assert.match(headers['X-MES'], /^base64:/);
  return Buffer.from(headers['X-MES'].slice('base64:'.length), 'base64').toString('utf8');
}

/** An injected wallet as a page sees it: lowercase accounts (as MetaMask answers), a connect step, hex personal_sign. */
function eip1193Over(wallet: TestWallet, chainId: number) {
  let connected = false;
  const calls: string[] = [];
  const provider: Eip1193Provider = {
    async request({ method, params }) {
      calls.push(method);
      switch (method) {
        case 'eth_accounts':
          return connected ? [wallet.address.toLowerCase()] : [];
        case 'eth_requestAccounts':
          connected = true;
          return [wallet.address.toLowerCase()];
        case 'eth_chainId':
          return `0x${chainId.toString(16)}`;
        case 'personal_sign': {
          const [data, address] = params as [`0x${string}`, string];
          assert.equal(address.toLowerCase(), wallet.address.toLowerCase());
          return wallet.account.signMessage({ message: { raw: data } });
        }
        default:
          throw new Error(`unexpected ${method}`);
      }
    },
  };
  return { provider, calls };
}

describe('the client library against the service (sqlite)', () => {
  let svc: TestService;
  let fixture: TenantFixture;
  let channel: string;

  before(async () => {
    // Server nonces required: every message the client signs must carry a nonce the service issued.
    svc = await startTestService('sqlite', { transport: 'socket', env: { AUTH_REQUIRE_SERVER_NONCE: 'true' } });
    fixture = await createTenantFixture(svc.service.store, 'Client');
    channel = fixture.channel.id;
  });
  after(() => svc.close());

  const clientOf = (signer: WalletSigner, options: { lifetimeSeconds?: number; resume?: SignedIn } = {}) => {
    const counter = countingFetch();
    return { client: createClient({ baseUrl: svc.baseUrl, signer, fetch: counter.fetch, ...options }), counter };
  };

  test('every endpoint once, signed in with one message', async () => {
    const { client, counter } = clientOf(fromViemAccount(fixture.ownerWallet.account));

    const me = await client.authTest();
    assert.equal(me.principal.id, fixture.owner.id);
    assert.equal(me.walletAddress, fixture.ownerWallet.address);

    const { nonce, expiresAt } = await client.nonce();
    assert.match(nonce, /^[A-Za-z0-9]{8,}$/);
    assert.ok(Date.parse(expiresAt) > Date.now());

    const first = await client.upload(channel, 'docs', 'notes.txt', 'first version', 'text/plain');
    assert.deepEqual(
      [first.created, first.file.size, first.file.sha256, first.file.contentType],
      [true, 13, sha256('first version'), 'text/plain'],
    );
    const backup = await client.createBackup(channel);
    assert.deepEqual([backup.files, backup.bytes], [1, 13]);
    const second = await client.upload(channel, 'docs', 'notes.txt', new TextEncoder().encode('second version'));
    assert.deepEqual([second.created, second.file.contentType], [false, 'application/octet-stream']);
    const blob = await client.upload(channel, 'docs', 'b.json', new Blob(['{"a":1}'], { type: 'application/json' }));
    assert.equal(blob.file.contentType, 'application/json');
    const buffer = await client.upload(channel, 'docs', 'c.bin', new Uint8Array([1, 2, 3]).buffer);
    assert.equal(buffer.file.size, 3);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('streamed '));
        controller.enqueue(new TextEncoder().encode('bytes'));
        controller.close();
      },
    });
    assert.equal((await client.upload(channel, 'docs', 'd name ü.txt', stream, 'text/plain')).file.sha256, sha256('streamed bytes'));

    const whole = await client.download(channel, 'docs', 'notes.txt');
    assert.equal(await whole.text(), 'second version');
    const part = await client.download(channel, 'docs', 'notes.txt', { range: { start: 7, end: 10 } });
    assert.deepEqual([part.status, await part.text()], [206, 'vers']);
    assert.equal(await (await client.download(channel, 'docs', 'd name ü.txt', { range: { start: 9 } })).text(), 'bytes');

    const files = await client.listFiles(channel, 'docs');
    assert.deepEqual(files.items.map((file) => file.filename).sort(), ['b.json', 'c.bin', 'd name ü.txt', 'notes.txt']);
    assert.equal(files.next, null);
    const firstPage = await client.listFiles(channel, 'docs', { limit: 3 });
    assert.equal(firstPage.items.length, 3);
    assert.equal(typeof firstPage.next, 'string');
    const paged: string[] = [];
    for await (const file of paginate((page) => client.listFiles(channel, 'docs', page), { limit: 1 })) paged.push(file.filename);
    assert.deepEqual(paged.sort(), ['b.json', 'c.bin', 'd name ü.txt', 'notes.txt']);

    assert.deepEqual((await client.listFolders(channel)).items, [{ name: 'docs', fileCount: 4 }]);
    const channels = await client.listChannels();
    assert.deepEqual(
      channels.items.map((c) => c.id),
      [channel],
    );
    assert.equal(channels.next, null);

    const backups = await client.listBackups(channel);
    assert.deepEqual(
      backups.items.map((b) => b.timestamp),
      [backup.timestamp],
    );

    const restored = await client.restore(channel, 'docs', 'notes.txt', { backupTimestamp: backup.timestamp });
    assert.equal(restored.url, `${svc.baseUrl}/api/channels/${channel}/folders/docs/files/notes.txt`);
    assert.equal(await (await client.download(channel, 'docs', 'notes.txt')).text(), 'first version');
    const versions = await client.versions(channel, 'docs', 'notes.txt');
    const replacedByRestore = versions.items[0]!;
    assert.equal(replacedByRestore.sha256, sha256('second version'));
    assert.equal(restored.keptVersionId, replacedByRestore.id, 'the restore names the version it kept');
    // The undo, with the id the restore answered.
    const undone = await client.restore(channel, 'docs', 'notes.txt', { versionId: restored.keptVersionId! });
    assert.equal(undone.url, restored.url);
    assert.match(String(undone.keptVersionId), /^ver_/);
    assert.equal(await (await client.download(channel, 'docs', 'notes.txt')).text(), 'second version');
    // No source: the newest backup holding the file.
    await client.restore(channel, 'docs', 'notes.txt');
    assert.equal(await (await client.download(channel, 'docs', 'notes.txt')).text(), 'first version');
    // The same bytes again: nothing replaced, nothing kept.
    assert.deepEqual(await client.restore(channel, 'docs', 'notes.txt'), { url: restored.url, keptVersionId: null });

    await client.deleteFile(channel, 'docs', 'c.bin');
    await assert.rejects(
      client.download(channel, 'docs', 'c.bin'),
      (error: unknown) => error instanceof ProblemError && error.status === 404,
    );

    const audit = await client.listAudit(channel, { limit: 1000 });
    const actions = new Set(audit.items.map((event) => event.action));
    for (const action of ['backup', 'restore', 'delete']) assert.ok(actions.has(action), `${action} in ${[...actions]}`);
    const restores = await client.listAudit(channel, { action: 'restore', folder: 'docs', filename: 'notes.txt', result: 'ok' });
    assert.deepEqual(
      restores.items.map((event) => event.id),
      audit.items.filter((e) => e.action === 'restore' && e.filename === 'notes.txt' && e.result === 'ok').map((e) => e.id),
    );
    assert.equal(restores.items.length, 4);
    const firstTwo = await client.listAudit(channel, { action: 'restore', adminId: fixture.owner.id, limit: 2 });
    const others = await client.listAudit(channel, { action: 'restore', adminId: fixture.owner.id, cursor: firstTwo.next! });
    assert.deepEqual(
      [...firstTwo.items, ...others.items].map((event) => event.id),
      restores.items.map((event) => event.id),
      'a cursor goes on with the same filters',
    );
    await assert.rejects(
      client.listAudit(channel, { action: 'rename' as never }),
      (error: unknown) => error instanceof ProblemError && error.status === 400 && error.code === 'VALIDATION_FAILED',
    );

    // One nonce for the sign-in, one asked for above: every call presented the same message.
    assert.equal(counter.nonces(), 2);
  });

  test("problems arrive as ProblemError with the problem's fields; a refusal is not retried", async () => {
    const { client, counter } = clientOf(fromViemAccount(fixture.ownerWallet.account));
    const missing = await client.listFiles('no-such-channel', 'docs').then(
      () => assert.fail('expected 404'),
      (error: unknown) => error,
    );
    assert.ok(missing instanceof ProblemError);
    assert.deepEqual(
      [missing.status, missing.code, missing.title, missing.instance],
      [404, 'CHANNEL_NOT_FOUND', 'Not Found', '/api/channels/no-such-channel/folders/docs/files'],
    );
    assert.match(missing.detail, /no-such-channel/);
    assert.equal(typeof missing.requestId, 'string');

    const member = await createMemberAdmin(svc.service.store, fixture, { permissions: ['files:read'], channels: [fixture.channel] });
    const reader = clientOf(fromViemAccount(member.wallet.account)).client;
    await assert.rejects(reader.createBackup(channel), (error: unknown) => {
      assert.ok(error instanceof ProblemError);
      assert.deepEqual([error.status, error.code, error.instance], [403, 'PERMISSION_DENIED', `/api/channels/${channel}/backups`]);
      assert.match(error.detail, /backups:create/);
      return true;
    });

    const stranger = clientOf(fromViemAccount(newWallet().account));
    await assert.rejects(stranger.client.authTest(), (error: unknown) => {
      assert.ok(error instanceof ProblemError);
      assert.deepEqual([error.status, error.code, error.instance], [401, 'AUTH_UNKNOWN_WALLET', '/api/auth/test']);
      return true;
    });
    assert.equal(stranger.counter.nonces(), 1, 'a refusal that a new signature cannot cure is not signed again');
    assert.equal(counter.nonces(), 1);
  });

  test('conditional writes: ifMatch / ifNoneMatch on upload, deleteFile and restore; a 412 is a ProblemError', async () => {
    const { client } = clientOf(fromViemAccount(fixture.ownerWallet.account));
    const preconditionFailed = (error: unknown) =>
      error instanceof ProblemError && error.status === 412 && error.code === 'PRECONDITION_FAILED';

    const created = await client.upload(channel, 'cond', 'plan.txt', 'one', 'text/plain', { ifNoneMatch: '*' });
    assert.deepEqual([created.created, created.etag], [true, `"${sha256('one')}"`]);
    await assert.rejects(client.upload(channel, 'cond', 'plan.txt', 'two', 'text/plain', { ifNoneMatch: '*' }), preconditionFailed);
    await assert.rejects(client.upload(channel, 'cond', 'plan.txt', 'two', undefined, { ifMatch: `"${sha256('other')}"` }), (error) => {
      assert.ok(preconditionFailed(error));
      assert.match((error as ProblemError).detail, new RegExp(sha256('one')));
      return true;
    });
    const replaced = await client.upload(channel, 'cond', 'plan.txt', 'two', undefined, { ifMatch: ['"stale"', created.etag] });
    assert.deepEqual([replaced.created, replaced.etag], [false, `"${sha256('two')}"`]);
    assert.equal((await client.upload(channel, 'cond', 'plan.txt', 'three', undefined, { ifNoneMatch: [created.etag] })).created, false);
    const current = `"${sha256('three')}"`;

    // Another test of this file may have backed the channel up in this very second.
    await nextSecond();
    const backup = await client.createBackup(channel);
    await client.upload(channel, 'cond', 'plan.txt', 'four');
    await assert.rejects(
      client.restore(channel, 'cond', 'plan.txt', { backupTimestamp: backup.timestamp }, { ifMatch: current }),
      preconditionFailed,
    );
    assert.equal(await (await client.download(channel, 'cond', 'plan.txt')).text(), 'four');
    const restored = await client.restore(
      channel,
      'cond',
      'plan.txt',
      { backupTimestamp: backup.timestamp },
      { ifMatch: `"${sha256('four')}"` },
    );
    assert.match(String(restored.keptVersionId), /^ver_/);

    await assert.rejects(client.deleteFile(channel, 'cond', 'plan.txt', { ifMatch: `"${sha256('four')}"` }), preconditionFailed);
    await client.deleteFile(channel, 'cond', 'plan.txt', { ifMatch: '*' });
    assert.equal(await client.stat(channel, 'cond', 'plan.txt'), undefined);
    await assert.rejects(client.deleteFile(channel, 'cond', 'plan.txt', { ifMatch: '*' }), preconditionFailed);
  });

  test('names go out in NFC, the form the service stores: a name typed in NFD (macOS) is the same file', async () => {
    const { client, counter } = clientOf(fromViemAccount(fixture.ownerWallet.account));
    const [folder, filename] = ['Übersicht'.normalize('NFD'), 'café.txt'.normalize('NFD')];
    const uploaded = await client.upload(channel, folder, filename, 'typed on a Mac', 'text/plain');
    assert.deepEqual([uploaded.file.folder, uploaded.file.filename], ['Übersicht'.normalize('NFC'), 'café.txt'.normalize('NFC')]);
    const stat = await client.stat(channel, folder, filename);
    assert.deepEqual([stat?.folder, stat?.filename], ['Übersicht'.normalize('NFC'), 'café.txt'.normalize('NFC')]);
    assert.equal((await client.listFiles(channel, folder)).items.length, 1);
    assert.equal((await client.listAudit(channel, { folder, filename, action: 'upload' })).items.length, 1);
    const sent = counter.paths.filter((path) => path.includes('/folders/'));
    assert.ok(sent.length >= 3);
    for (const path of sent) assert.ok(path.includes(encodeURIComponent('Übersicht'.normalize('NFC'))), path);
  });

  test('. and .. are refused before anything is sent: a URL would read them as dot segments (a file restore becoming its folder restore)', async () => {
    const { client, counter } = clientOf(fromViemAccount(fixture.ownerWallet.account));
    // Were it sent, a backup of this timestamp would be BACKUP_NOT_FOUND; nothing is.
    const backup = '20260101_000000';
    const dotSegment = (error: unknown) =>
      error instanceof TypeError && /"\.\.?" cannot name anything in a request's path/.test(error.message);
    await assert.rejects(client.restore(channel, 'docs', '..', { backupTimestamp: backup }), dotSegment);
    await assert.rejects(client.restore(channel, '..', 'a.txt', { backupTimestamp: backup }), dotSegment);
    await assert.rejects(client.restoreFolder(channel, '.', { backupTimestamp: backup }), dotSegment);
    await assert.rejects(client.deleteBackup('..', backup), dotSegment);
    await assert.rejects(client.removeAdmin('..'), dotSegment);
    await assert.rejects(client.getChannelPolicy('.'), dotSegment);
    assert.deepEqual(counter.paths, [], 'no request went out, not even a sign-in');
  });

  test('an answer that is not a problem is an HttpError with its status and body', async () => {
    const client = createClient({
      baseUrl: svc.baseUrl,
      signer: fromViemAccount(fixture.ownerWallet.account),
      fetch: async (input) =>
        new URL(String(input)).pathname === '/api/auth/nonce'
          ? fetch(input)
          : new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway', headers: { 'content-type': 'text/html' } }),
    });
    await assert.rejects(client.authTest(), (error: unknown) => {
      assert.ok(error instanceof HttpError && !(error instanceof ProblemError));
      assert.equal(error.status, 502);
      assert.equal(error.body, '<html>Bad gateway</html>');
      assert.match(error.message, /502 Bad Gateway/);
      return true;
    });
  });

  test('a signed request answered 202 throws HeldForApproval with the proposal: it is never taken for done', async () => {
    const proposal = { id: 'prp_held', summary: 'Delete backup 20260101_000000', required: 2, approvalsCounted: 0 };
    const client = createClient({
      baseUrl: svc.baseUrl,
      signer: fromViemAccount(fixture.ownerWallet.account),
      fetch: async (input, init) =>
        new URL(String(input)).pathname === '/api/auth/nonce'
          ? fetch(input, init)
          : new Response(JSON.stringify(proposal), { status: 202, headers: { 'content-type': 'application/json' } }),
    });
    await assert.rejects(client.deleteBackup('main', '20260101_000000'), (error: unknown) => {
      assert.ok(error instanceof HeldForApproval);
      assert.equal(error.proposal.id, 'prp_held');
      return true;
    });
  });

  test("exportTenantAudit is the tenant's chain as JSON Lines; auditHead its last entry", async () => {
    // The tests before this one wrote the log's entries.
    const { client } = clientOf(fromViemAccount(fixture.ownerWallet.account));
    const text = await client.exportTenantAudit();
    const lines = text.trim().split('\n');
    const head = await client.auditHead();
    assert.ok(lines.length > 1);
    assert.equal(head.seq, lines.length);
    assert.equal(head.hash, (JSON.parse(lines.at(-1)!) as { hash: string }).hash);
  });

  test('signedIn() tells the message in use and when it expires, without signing', async () => {
    const { client, counter } = clientOf(fromViemAccount(fixture.ownerWallet.account), { lifetimeSeconds: 600 });
    assert.equal(await client.signedIn(), undefined, 'not signed in before the first call');
    assert.equal(counter.nonces(), 0, 'asking signs nothing');

    const headers = await client.signIn();
    const current = await client.signedIn();
    assert.ok(current);
    assert.deepEqual(current.headers, headers);
    assert.ok(current.expiresAt instanceof Date);
    const message = parseSiweMessage(signedMessage(headers));
    assert.equal(current.expiresAt.getTime(), Date.parse(message.expirationTime!), "the message's own Expiration Time");
    assert.equal(current.expiresAt.getTime() - Date.parse(message.issuedAt), 600_000);
    assert.equal(counter.nonces(), 1);

    await client.logout();
    assert.equal(await client.signedIn(), undefined, 'not signed in after logout');
    assert.equal(counter.nonces(), 1);
  });

  test('resume: a message signed by an earlier client is presented without signing, and replaced once refused', async () => {
    const first = clientOf(fromViemAccount(fixture.ownerWallet.account), { lifetimeSeconds: 600 }).client;
    await first.signIn();
    const kept = await first.signedIn();
    assert.ok(kept);
    const { client, counter } = clientOf(fromViemAccount(fixture.ownerWallet.account), { resume: kept });
    assert.equal((await client.authTest()).allHeaders['X-SIG'], kept.headers['X-SIG']);
    assert.equal(counter.nonces(), 0, 'no new signature');
    // Logged out (by the first client): the resumed message is refused, and a new one signed.
    await first.logout();
    assert.notEqual((await client.authTest()).allHeaders['X-SIG'], kept.headers['X-SIG']);
    assert.equal(counter.nonces(), 1);
  });

  test('signedIn() is undefined once the message has expired', async () => {
    const { client } = clientOf(fromViemAccount(fixture.ownerWallet.account), { lifetimeSeconds: 1 });
    const headers = await client.signIn();
    const expiry = Date.parse(parseSiweMessage(signedMessage(headers)).expirationTime!);
    assert.deepEqual((await client.signedIn())?.headers, headers);
    await new Promise((resolve) => setTimeout(resolve, expiry - Date.now() + 5));
    assert.equal(await client.signedIn(), undefined);
  });

  test('a message logged out elsewhere is signed anew once; logout revokes the one in use', async () => {
    const { client, counter } = clientOf(fromViemAccount(fixture.ownerWallet.account));
    const first = await client.signIn();
    assert.equal((await client.authTest()).allHeaders['X-SIG'], first['X-SIG']);

    // Another tab (or a CLI) signs this very message out.
    assert.equal((await request(svc.baseUrl, '/api/auth/logout', { method: 'POST', headers: first })).status, 204);
    const renewed = await client.authTest();
    assert.notEqual(renewed.allHeaders['X-SIG'], first['X-SIG']);
    assert.equal(counter.nonces(), 2);
    assert.deepEqual(
      counter.paths.filter((path) => path === '/api/auth/test'),
      ['/api/auth/test', '/api/auth/test', '/api/auth/test'],
      'the refused request was sent once more',
    );

    const second = await client.signIn();
    await client.logout();
    const old = await request(svc.baseUrl, '/api/auth/test', { headers: second });
    assert.equal(old.status, 401);
    assert.equal(old.json().code, 'AUTH_MESSAGE_REVOKED');
    await client.authTest();
    assert.equal(counter.nonces(), 3, 'signed in again after logout');
    await client.logout();
    await client.logout();
    assert.equal(counter.paths.filter((path) => path === '/api/auth/logout').length, 2, 'a second logout has nothing to revoke');
  });

  test('the message is replaced shortly before it expires', async () => {
    const { client, counter } = clientOf(fromViemAccount(fixture.ownerWallet.account), { lifetimeSeconds: 2 });
    const first = await client.signIn();
    const message = parseSiweMessage(signedMessage(first));
    assert.equal(Date.parse(message.expirationTime!) - Date.parse(message.issuedAt), 2000);
    assert.equal((await client.signIn())['X-SIG'], first['X-SIG']);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(message.expirationTime!) - Date.now()));
    await client.authTest();
    assert.notEqual((await client.signIn())['X-SIG'], first['X-SIG']);
    assert.equal(counter.nonces(), 2);
  });

  test('concurrent first calls share one signing', async () => {
    const { client, counter } = clientOf(fromViemAccount(fixture.ownerWallet.account));
    await Promise.all([client.authTest(), client.listFiles(channel, 'docs'), client.listBackups(channel)]);
    assert.equal(counter.nonces(), 1);
  });

  test("the message is EIP-4361 as the service parses it: the service's host and origin, the signer's chain, the nonce it issued", async () => {
    const { provider, calls } = eip1193Over(fixture.ownerWallet, 137);
    const { client } = clientOf(fromEip1193(provider));
    const me = await client.authTest();
    assert.equal(me.principal.id, fixture.owner.id);
    const message = parseSiweMessage(signedMessage(me.allHeaders));
    const origin = new URL(svc.baseUrl);
    assert.deepEqual(
      [message.domain, message.uri, message.chainId, message.address, message.version],
      [origin.host, origin.origin, 137, fixture.ownerWallet.address, '1'],
    );
    assert.equal(me.allHeaders['X-WAL'], fixture.ownerWallet.address, 'the lowercase account in checksum case');
    assert.ok(calls.includes('eth_requestAccounts') && calls.includes('personal_sign'));
    // The default lifetime: a working day.
    assert.equal(Date.parse(message.expirationTime!) - Date.parse(message.issuedAt), 8 * 3600 * 1000);
  });

  test('an ethers Wallet signs in (without a provider, on the chain id given)', async () => {
    const ethersWallet = new Wallet(fixture.ownerWallet.privateKey);
    const { client } = clientOf(fromEthersSigner(ethersWallet, 10));
    const me = await client.authTest();
    assert.equal(me.principal.id, fixture.owner.id);
    assert.equal(parseSiweMessage(signedMessage(me.allHeaders)).chainId, 10);
    const files = await client.listFiles(channel, 'docs');
    assert.ok(files.items.length > 0);
  });
});

test('the built client holds no Node module and no Node global (it runs in a page)', async () => {
  // Platform neutral: an import of node:* would fail this build.
  const result = await build({ ...CLIENT_BUILD_OPTIONS, write: false, outfile: 'client.mjs' });
  const code = result.outputFiles?.[0]?.text ?? '';
  assert.doesNotMatch(code, /\bBuffer\b|\bprocess\.|\brequire\(|from ['"]node:/);
  assert.match(code, /export \{/);
});
