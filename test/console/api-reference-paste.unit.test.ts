import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePastedHeaders } from '../../src/api-reference/signed-headers.ts';
import { createSignInHeaders } from '../../src/auth/signing/sign-in-headers.ts';
import { newWallet } from '../helpers/wallets.ts';

/**
 * The API reference's Authorize box reads back what `wallet-admin sign` prints (its browser side
 * is tested in Chromium, test/console/api-reference.test.ts): here, every form a user may paste.
 */

const wallet = newWallet();
const options = { privateKey: wallet.privateKey, domain: '127.0.0.1:8080', uri: 'http://127.0.0.1:8080' };
const signed = await createSignInHeaders(options);
const three = { 'X-WAL': signed['X-WAL'], 'X-SIG': signed['X-SIG'], 'X-MES': signed['X-MES'] };
/** As the CLI prints them: one `Name: value` line each, X-Wallet-Address last. */
const printed = Object.entries(signed)
  .map(([name, value]) => `${name}: ${value}`)
  .join('\n');

test('the text wallet-admin sign prints, its --json, and a curl command holding the headers', () => {
  for (const [form, text] of [
    ['text', printed],
    ['text with CRLF and blank lines around', `\r\n${printed.replaceAll('\n', '\r\n')}\r\n\r\n`],
    ['--json', JSON.stringify(signed)],
    [
      'curl, one line',
      `curl -sS ${Object.entries(signed)
        .map(([name, value]) => `-H '${name}: ${value}'`)
        .join(' ')} http://127.0.0.1:8080/api/auth/test`,
    ],
    [
      'curl, a line per header',
      `curl -sS \\\n${Object.entries(signed)
        .map(([name, value]) => `  -H "${name}: ${value}" \\`)
        .join('\n')}\n  http://127.0.0.1:8080/api/auth/test`,
    ],
    ['lower-case names', printed.replace(/^X-(WAL|SIG|MES):/gm, (name) => name.toLowerCase())],
  ] as const) {
    assert.deepEqual(parsePastedHeaders(text), { ok: true, headers: three }, form);
  }
});

test('a plain (one-line, timestamped) message keeps its spaces', async () => {
  const plain = await createSignInHeaders({ ...options, plain: true });
  assert.match(plain['X-MES'], / /);
  const text = Object.entries(plain)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  const pasted = parsePastedHeaders(text);
  assert.ok(pasted.ok);
  assert.equal(pasted.headers['X-MES'], plain['X-MES']);
});

test('a paste missing a header, or with one of the wrong shape, says which and what it should be', () => {
  const withoutSignature = printed
    .split('\n')
    .filter((line) => !line.startsWith('X-SIG'))
    .join('\n');
  assert.deepEqual(parsePastedHeaders(withoutSignature), {
    ok: false,
    problem: 'No X-SIG in what was pasted: paste all that wallet-admin sign printed (its X-WAL, X-SIG and X-MES lines)',
  });
  assert.match((parsePastedHeaders('') as { problem: string }).problem, /^No X-WAL, X-SIG, X-MES in what was pasted/);
  assert.match((parsePastedHeaders('{"X-WAL": 1}') as { problem: string }).problem, /^No X-WAL, X-SIG, X-MES/);
  const cut = printed.replace(signed['X-SIG'], signed['X-SIG'].slice(0, 40));
  assert.match((parsePastedHeaders(cut) as { problem: string }).problem, /^X-SIG must be 0x and 130 hex digits; the pasted one is "0x/);
});
