import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ageDecryptBuffer } from '../../src/age/age-decrypt.ts';
import { ageEncrypt, ageEncryptBuffer } from '../../src/age/age-encrypt.ts';
import { generateIdentity, parseIdentityFile, parseRecipient, parseRecipients, recipientOf } from '../../src/age/age-keys.ts';

/**
 * Our age (src/offsite/age/) against the real one, Debian's `age` and `age-keygen` (installed by
 * CI): what we write, age reads, and the other way round, with keys made by age-keygen.
 */

const run = promisify(execFile);
/** age's output, as bytes. */
const runForBytes = async (file: string, args: string[]): Promise<Buffer> =>
  (await run(file, args, { encoding: 'buffer', maxBuffer: 8 * 1024 * 1024 })).stdout;

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  for await (const piece of stream) pieces.push(piece);
  return Buffer.concat(pieces);
}

async function* piecesOf(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}

describe('age interoperability with the age and age-keygen binaries', () => {
  let dir: string;
  let keyFile: string;
  let identity: Uint8Array;
  let recipient: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-age-'));
    keyFile = path.join(dir, 'key.txt');
    await run('age-keygen', ['-o', keyFile]);
    [identity] = parseIdentityFile(await readFile(keyFile, 'utf8')) as [Uint8Array];
    recipient = (await run('age-keygen', ['-y', keyFile])).stdout.trim();
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a key made by age-keygen: ours gives the recipient age-keygen -y gives', async () => {
    assert.match(recipient, /^age1[0-9a-z]{58}$/);
    assert.equal(recipientOf(identity), recipient);
    // And the recipient age-keygen wrote as a comment in the file.
    assert.match(await readFile(keyFile, 'utf8'), new RegExp(`^# public key: ${recipient}$`, 'm'));
  });

  for (const size of [0, 100_000, 1_000_000]) {
    test(`what we encrypt (${size} bytes), age -d decrypts`, async () => {
      const plaintext = randomBytes(size);
      const encrypted = path.join(dir, `ours-${size}.age`);
      await writeFile(encrypted, await collect(ageEncrypt([parseRecipient(recipient)], piecesOf(plaintext, 65_000))));
      assert.deepEqual(await runForBytes('age', ['-d', '-i', keyFile, encrypted]), plaintext);
    });
  }

  test('what age -r encrypts, we decrypt (1 MB and nothing)', async () => {
    for (const size of [1_000_000, 0]) {
      const plaintext = randomBytes(size);
      const input = path.join(dir, `plain-${size}`);
      await writeFile(input, plaintext);
      const encrypted = await runForBytes('age', ['-r', recipient, input]);
      assert.deepEqual(await ageDecryptBuffer([identity], encrypted), plaintext);
    }
  });

  test('what age -R encrypts to two recipients, either identity decrypts with ours; and the other way', async () => {
    const second = generateIdentity();
    const secondIdentity = parseIdentityFile(second.identity)[0]!;
    const recipientsFile = path.join(dir, 'recipients.txt');
    await writeFile(recipientsFile, `# the operator\n${recipient}\n# the spare\n${second.recipient}\n`);
    const plaintext = randomBytes(200_000);
    const input = path.join(dir, 'plain-two');
    await writeFile(input, plaintext);
    const encrypted = await runForBytes('age', ['-R', recipientsFile, input]);
    assert.deepEqual(await ageDecryptBuffer([identity], encrypted), plaintext);
    assert.deepEqual(await ageDecryptBuffer([secondIdentity], encrypted), plaintext);

    // Ours to the same two, read from the same file; age decrypts with each key.
    const ours = path.join(dir, 'ours-two.age');
    await writeFile(ours, await ageEncryptBuffer(parseRecipients(await readFile(recipientsFile, 'utf8')), plaintext));
    const secondKeyFile = path.join(dir, 'second-key.txt');
    await writeFile(secondKeyFile, `${second.identity}\n`);
    assert.deepEqual(await runForBytes('age', ['-d', '-i', keyFile, ours]), plaintext);
    assert.deepEqual(await runForBytes('age', ['-d', '-i', secondKeyFile, ours]), plaintext);
  });
});
