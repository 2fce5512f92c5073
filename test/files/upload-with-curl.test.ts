import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, sha256 } from '../helpers/files.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const run = promisify(execFile);

/** Issue 18, item 4, with the real curl (Debian's) against a listening service: the commands people type. */
for (const engine of ENGINES) {
  describe(`uploads with curl and no -H Content-Type (${engine})`, () => {
    let svc: TestService;
    let client: FilesClient;
    let dir: string;
    let headers: string[];

    before(async () => {
      svc = await startTestService(engine, { transport: 'socket' });
      const fixture = await createTenantFixture(svc.service.store, 'Curl');
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
      headers = Object.entries(client.auth).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
      dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-curl-'));
    });
    after(async () => {
      await svc.close();
      await rm(dir, { recursive: true, force: true });
    });

    /** curl's answer: the body, then the status on its own last line. */
    const curl = async (args: string[], filename: string) => {
      const { stdout } = await run('curl', [
        '-sS',
        ...headers,
        ...args,
        '-w',
        '\n%{http_code}',
        `${svc.baseUrl}${client.filePath('up', filename)}`,
      ]);
      const at = stdout.lastIndexOf('\n');
      return { status: Number(stdout.slice(at + 1)), body: JSON.parse(stdout.slice(0, at)) };
    };

    test('--data-binary @file stores the bytes with the type of the name (curl sends x-www-form-urlencoded)', async () => {
      const bytes = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3 a=b&c=d\n', 'latin1');
      await writeFile(path.join(dir, 'report.pdf'), bytes);
      const answer = await curl(['-X', 'PUT', '--data-binary', `@${path.join(dir, 'report.pdf')}`], 'report.pdf');
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      assert.deepEqual([answer.body.contentType, answer.body.size, answer.body.sha256], ['application/pdf', bytes.length, sha256(bytes)]);
      assert.equal((await client.get('up', 'report.pdf')).headers['content-type'], 'application/pdf');
    });

    test('-T file (no Content-Type at all) does the same', async () => {
      await writeFile(path.join(dir, 'prices.csv'), 'item,price\ntea,3\n');
      const answer = await curl(['-T', path.join(dir, 'prices.csv')], 'prices.csv');
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      assert.equal(answer.body.contentType, 'text/csv');
      assert.equal((await client.get('up', 'prices.csv')).body, 'item,price\ntea,3\n');
    });

    test('-F file=@x is refused with 415 naming --data-binary; nothing is stored', async () => {
      await writeFile(path.join(dir, 'eight.txt'), '8 bytes!');
      const answer = await curl(['-X', 'PUT', '-F', `file=@${path.join(dir, 'eight.txt')}`], 'eight.txt');
      assert.equal(answer.status, 415, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'UNSUPPORTED_MEDIA_TYPE');
      assert.match(answer.body.detail, /curl --data-binary @file \(or -T file\)/);
      assert.equal((await client.get('up', 'eight.txt')).status, 404);
    });
  });
}
