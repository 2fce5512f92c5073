import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { censorUrl, createLogger } from '../../src/logging/logger.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

describe('request log', () => {
  let svc: TestService;
  let fixture: TenantFixture;

  before(async () => {
    svc = await startTestService('sqlite');
    fixture = await createTenantFixture(svc.service.store, 'Logs');
  });
  after(() => svc.close());

  test('one line per answered request, with its id, route, status and time, and no credential', async () => {
    const auth = await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!);
    const before = svc.logs.length;
    // A query the route declares (an unknown one is refused): the line shows the URL with it.
    const ok = await request(svc.baseUrl, '/api/channels?limit=1', { headers: auth });
    const forged = `${auth['X-SIG'].slice(0, 40)}${auth['X-SIG'][40] === 'a' ? 'b' : 'a'}${auth['X-SIG'].slice(41)}`;
    const refused = await request(svc.baseUrl, '/api/auth/test', { headers: { ...auth, 'X-SIG': forged } });
    assert.deepEqual([ok.status, refused.status], [200, 401]);
    await new Promise((resolve) => setTimeout(resolve, 50));

    const lines = svc.logs.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
    const completed = lines.filter((line) => line.msg === 'request completed');
    assert.equal(completed.length, 2, JSON.stringify(lines));
    assert.equal(lines.filter((line) => line.msg === 'incoming request').length, 0);
    const [first, second] = completed as [Record<string, unknown>, Record<string, unknown>];
    assert.deepEqual([first.method, first.url, first.statusCode, first.remoteAddress], ['GET', '/api/channels?limit=1', 200, '127.0.0.1']);
    assert.equal(second.statusCode, 401);
    assert.match(String(first.reqId), /^[0-9a-f-]{36}$/);
    assert.notEqual(first.reqId, second.reqId);
    assert.equal(typeof first.responseTime, 'number');
    const text = svc.logs.slice(before).join('\n');
    for (const secret of [auth['X-SIG'], auth['X-MES'], forged]) assert.ok(!text.includes(secret), 'a credential reached the log');
  });

  test('a URL loses the value of every query parameter (after ?, & or a further ?) whose decoded name is signature, in any letter case; nothing else changes', () => {
    const cases: [string, string][] = [
      ['/f?expires=1&signature=abc', '/f?expires=1&signature=[redacted]'],
      ['/f?expires=1&%73ignature=abc', '/f?expires=1&%73ignature=[redacted]'],
      ['/f?%53IGNATURE=abc&x=1', '/f?%53IGNATURE=[redacted]&x=1'],
      ['/f?Signature=abc&signature=def', '/f?Signature=[redacted]&signature=[redacted]'],
      ['/f?signature=a%2Fb%3D', '/f?signature=[redacted]'],
      ['/f?sig+nature=abc', '/f?sig+nature=abc'],
      ['/f?signatures=abc&my_signature=def&q=signature', '/f?signatures=abc&my_signature=def&q=signature'],
      ['/f?%ZZsignature=abc&name=%E2%82%AC', '/f?%ZZsignature=abc&name=%E2%82%AC'],
      ['/f?signature', '/f?signature'],
      ['/api/auth/test', '/api/auth/test'],
      ['/files/signature=1', '/files/signature=1'],
      // A '?' inside the query starts a parameter for whoever reads the line, if not for the router.
      ['/healthz??signature=abc', '/healthz??signature=[redacted]'],
      ['/f?x=1?signature=abc&y=2', '/f?x=1?signature=[redacted]&y=2'],
      ['/f?x=a=b&signature=c=d', '/f?x=a=b&signature=[redacted]'],
      ['/f?signature=abc?x=1&y=2', '/f?signature=[redacted]&y=2'],
      ['/f?x=1?y=2?%73ignature=abc', '/f?x=1?y=2?%73ignature=[redacted]'],
      ['/f?x=1??&q=signature?', '/f?x=1??&q=signature?'],
    ];
    for (const [url, logged] of cases) assert.equal(censorUrl(url), logged, url);
  });

  test("headers, requests with headers, private keys and a failed Redis command's arguments are censored wherever they are logged", () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString('utf8'));
        callback();
      },
    });
    const logger = createLogger('info', sink);
    const headers = { 'X-SIG': '0xsecretsig', 'x-mes': 'base64:secretmessage', Authorization: 'Bearer secret-token', 'x-wal': '0xabc' };
    logger.info({ headers }, 'headers');
    logger.info({ req: { method: 'GET', headers } }, 'request');
    logger.info({ privateKey: '0xsecretkey' }, 'key');
    // What ioredis attaches to a refused sign-in: the command, with the password among its arguments.
    const refused = Object.assign(new Error('WRONGPASS invalid username-password pair'), {
      command: { name: 'hello', args: ['3', 'AUTH', 'default', 'secret-redis-password'] },
    });
    logger.warn({ err: refused }, 'Redis unreachable');
    const text = lines.join('');
    for (const secret of ['secretsig', 'secretmessage', 'secret-token', 'secretkey', 'secret-redis-password'])
      assert.ok(!text.includes(secret), `${secret} reached the log`);
    const [first, second] = lines.map(
      (line) => JSON.parse(line) as { headers?: Record<string, string>; req?: { method: string; headers: Record<string, string> } },
    );
    assert.equal(first!.headers!['x-wal'], '0xabc', 'other headers stay');
    assert.equal(first!.headers!['X-SIG'], '[redacted]');
    assert.equal(second!.req!.method, 'GET');
    assert.equal(second!.req!.headers.Authorization, '[redacted]');
    assert.deepEqual(headers['X-SIG'], '0xsecretsig', 'the logged object itself is not changed');
    const error = JSON.parse(lines[3]!).err as { message: string; stack: string; command: { name: string } };
    assert.equal(error.message, 'WRONGPASS invalid username-password pair', 'the error itself stays');
    assert.match(error.stack, /WRONGPASS/);
    assert.equal(error.command.name, 'hello', "the command's name stays");
    assert.equal(refused.command.args.length, 4, 'the logged error itself is not changed');
  });
});
