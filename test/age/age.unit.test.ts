import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { AgeError, ageDecrypt, ageDecryptBuffer } from '../../src/age/age-decrypt.ts';
import { ageEncrypt, ageEncryptBuffer } from '../../src/age/age-encrypt.ts';
import {
  chunkNonce,
  encodeBase64,
  headerMacKey,
  payloadKey,
  seal,
  wrapFileKey,
  x25519PrivateKey,
  x25519PublicKey,
  x25519SharedSecret,
  x25519WrapKey,
} from '../../src/age/age-format.ts';
import { generateIdentity, parseIdentityFile, parseRecipient, parseRecipients, recipientOf } from '../../src/age/age-keys.ts';
import { bech32Decode, bech32Encode } from '../../src/age/bech32.ts';

/**
 * Our age implementation (src/offsite/age/) against itself and against fixed vectors: round trips
 * at the chunk edges, every refusal with its message, keys as text. age-cli.test.ts holds it
 * against the real `age`.
 */

const CHUNK = 64 * 1024;
const SEALED_CHUNK = CHUNK + 16;

/** Made once by `age-keygen` 1.1.1; the recipient is what `age-keygen -y` printed for it. */
const KEYGEN_IDENTITY = 'AGE-SECRET-KEY-1Y9VNDVACEA5998QHXT5ZL0VW96VXR45LNXQAGUGCZ0L26T2QUAPQ49UE3A';
const KEYGEN_RECIPIENT = 'age168jzh256raccqqmcxgcgz77dt94al6rxhgvfj0fd67mmrdqa5dhsu3q05s';
/** The X25519 example of the C2SP age spec, checked with `age-keygen -y` as well. */
const SPEC_IDENTITY = 'AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX';
const SPEC_RECIPIENT = 'age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj';

interface KeyPair {
  identity: Uint8Array;
  recipient: Uint8Array;
}

function keyPair(): KeyPair {
  const { identity, recipient } = generateIdentity();
  return { identity: parseIdentityFile(identity)[0]!, recipient: parseRecipient(recipient) };
}

const alice = keyPair();
const bob = keyPair();
const carol = keyPair();

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  for await (const piece of stream) pieces.push(piece);
  return Buffer.concat(pieces);
}

/** `bytes` as a stream of pieces of `size` bytes (the last shorter). */
async function* piecesOf(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}

/** Decrypts, and returns the plaintext released before the refusal along with the refusal. */
async function refusal(identities: Uint8Array[], file: Uint8Array): Promise<{ error: AgeError; released: Buffer }> {
  const released: Uint8Array[] = [];
  try {
    for await (const piece of ageDecrypt(identities, file)) released.push(piece);
  } catch (error) {
    assert.ok(error instanceof AgeError, `an AgeError, not ${String(error)}`);
    return { error, released: Buffer.concat(released) };
  }
  assert.fail('the file was decrypted');
}

/** Where the payload (after the header and its 16-byte nonce) starts in an age file. */
function payloadStart(file: Buffer): number {
  return file.indexOf('\n', file.indexOf('\n--- ') + 1) + 1 + 16;
}

describe('age round trips', () => {
  for (const size of [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK]) {
    test(`${size} bytes`, async () => {
      const plaintext = randomBytes(size);
      const file = await ageEncryptBuffer([alice.recipient], plaintext);
      // One chunk per started 64 KiB, the last full-size at a multiple of 64 KiB, a single empty one for nothing.
      const chunks = Math.max(1, Math.ceil(size / CHUNK));
      assert.equal(file.length - payloadStart(file), size + 16 * chunks);
      assert.deepEqual(await ageDecryptBuffer([alice.identity], file), plaintext);
    });
  }

  test('about 1 MB, streamed in odd-sized pieces both ways', async () => {
    const plaintext = randomBytes(1_000_003);
    const encrypted: Uint8Array[] = [];
    for await (const piece of ageEncrypt([alice.recipient], piecesOf(plaintext, 4099))) {
      assert.ok(piece.length <= SEALED_CHUNK);
      encrypted.push(piece);
    }
    const file = Buffer.concat(encrypted);
    let released = 0;
    const decrypted: Uint8Array[] = [];
    for await (const piece of ageDecrypt([alice.identity], piecesOf(file, 997))) {
      assert.ok(piece.length <= CHUNK);
      released += piece.length;
      decrypted.push(piece);
    }
    assert.equal(released, plaintext.length);
    assert.deepEqual(Buffer.concat(decrypted), plaintext);
    // And whole, and a byte at a time for a file of a few chunks' header and edges.
    assert.deepEqual(await ageDecryptBuffer([alice.identity], file), plaintext);
    const small = randomBytes(CHUNK + 3);
    const smallFile = await collect(ageEncrypt([alice.recipient], piecesOf(small, 1)));
    assert.deepEqual(await collect(ageDecrypt([alice.identity], piecesOf(smallFile, 1))), small);
  });

  test('encryption reads its source a chunk ahead at most', async () => {
    let produced = 0;
    async function* endless(): AsyncIterable<Uint8Array> {
      for (;;) {
        produced += 10_000;
        yield randomBytes(10_000);
      }
    }
    let chunks = 0;
    for await (const _piece of ageEncrypt([alice.recipient], endless())) {
      if (++chunks === 5) break; // the header, the nonce, 3 chunks
    }
    assert.ok(produced <= 4 * CHUNK + 10_000, `${produced} bytes read for 3 chunks`);
  });

  test('decryption lets its source go when refused or left early', async () => {
    const file = await ageEncryptBuffer([alice.recipient], randomBytes(3 * CHUNK));
    let closed = 0;
    async function* source(): AsyncIterable<Uint8Array> {
      try {
        yield* piecesOf(file, 1000);
      } finally {
        closed++;
      }
    }
    await assert.rejects(collect(ageDecrypt([bob.identity], source())), AgeError);
    for await (const _piece of ageDecrypt([alice.identity], source())) break;
    assert.equal(closed, 2);
  });

  test('every recipient of a file decrypts it, with its identity among others', async () => {
    const plaintext = randomBytes(70_000);
    const file = await ageEncryptBuffer([alice.recipient, bob.recipient, carol.recipient], plaintext);
    assert.equal(file.toString('latin1').match(/^-> X25519 [A-Za-z0-9+/]{43}\n[A-Za-z0-9+/]{43}\n/gm)?.length, 3);
    for (const { identity } of [alice, bob, carol]) assert.deepEqual(await ageDecryptBuffer([identity], file), plaintext);
    assert.deepEqual(await ageDecryptBuffer([keyPair().identity, carol.identity], file), plaintext);
  });

  test('the header is the v1 text format: version line, stanzas, MAC', async () => {
    const file = await ageEncryptBuffer([alice.recipient, bob.recipient], Buffer.from('hello'));
    const header = file.subarray(0, payloadStart(file) - 16).toString('latin1');
    assert.match(header, /^age-encryption\.org\/v1\n(-> X25519 [A-Za-z0-9+/]{43}\n[A-Za-z0-9+/]{43}\n){2}--- [A-Za-z0-9+/]{43}\n$/);
  });
});

describe('age refusals', () => {
  const plaintext = randomBytes(3 * CHUNK + 5);
  const filePromise = ageEncryptBuffer([alice.recipient], plaintext);

  test('an identity the file is not for', async () => {
    const { error } = await refusal([bob.identity, carol.identity], await filePromise);
    assert.equal(error.reason, 'no-match');
    assert.equal(error.message, 'no identity matches any recipient of this file');
  });

  test('a header altered: a stanza added, a stanza body or the MAC changed', async () => {
    const file = await filePromise;
    const added = Buffer.from(file.toString('latin1').replace('\n--- ', '\n-> grease x\n\n--- '), 'latin1');
    const macMismatch = await refusal([alice.identity], added);
    assert.equal(macMismatch.error.reason, 'header-mac');
    assert.equal(macMismatch.error.message, "the header's MAC does not match (the header was altered or the file key is wrong)");

    const body = Buffer.from(file);
    const bodyAt = body.indexOf('\n', body.indexOf('-> X25519 ')) + 1;
    body[bodyAt] = body[bodyAt] === 0x41 ? 0x42 : 0x41; // another base64 letter
    assert.equal((await refusal([alice.identity], body)).error.reason, 'no-match');

    const mac = Buffer.from(file);
    const macAt = mac.indexOf('\n--- ') + 5;
    mac[macAt] = mac[macAt] === 0x41 ? 0x42 : 0x41;
    assert.equal((await refusal([alice.identity], mac)).error.reason, 'header-mac');
  });

  test('a byte flipped in a middle chunk: the chunks before it are released, then the refusal', async () => {
    const file = Buffer.from(await filePromise);
    file[payloadStart(file) + SEALED_CHUNK + 100]! ^= 0x01;
    const { error, released } = await refusal([alice.identity], file);
    assert.equal(error.reason, 'chunk-auth');
    assert.equal(error.message, 'chunk 1 failed authentication (altered or truncated data)');
    assert.deepEqual(released, plaintext.subarray(0, CHUNK));
  });

  test('a file cut at a chunk boundary, inside a chunk, after its header, inside its header', async () => {
    const file = await filePromise;
    const start = payloadStart(file);
    const atBoundary = await refusal([alice.identity], file.subarray(0, start + 2 * SEALED_CHUNK));
    assert.equal(atBoundary.error.reason, 'truncated');
    assert.equal(atBoundary.error.message, 'the file ends before its last chunk (truncated)');
    assert.deepEqual(atBoundary.released, plaintext.subarray(0, 2 * CHUNK));

    const inside = await refusal([alice.identity], file.subarray(0, start + SEALED_CHUNK + 1000));
    assert.equal(inside.error.message, 'chunk 1 failed authentication (altered or truncated data)');
    assert.equal((await refusal([alice.identity], file.subarray(0, start + SEALED_CHUNK + 10))).error.reason, 'truncated');
    assert.equal(
      (await refusal([alice.identity], file.subarray(0, start))).error.message,
      'the file ends before its last chunk (truncated)',
    );
    assert.equal((await refusal([alice.identity], file.subarray(0, start - 3))).error.reason, 'truncated');
    assert.equal((await refusal([alice.identity], file.subarray(0, 40))).error.reason, 'truncated');
  });

  test('bytes appended after the final chunk', async () => {
    // A full-size final chunk is authentic as final: what follows it is named as such.
    const full = await ageEncryptBuffer([alice.recipient], randomBytes(CHUNK));
    const trailing = await refusal([alice.identity], Buffer.concat([full, Buffer.from('extra')]));
    assert.equal(trailing.error.reason, 'trailing-data');
    assert.equal(trailing.error.message, 'the file has data after its final chunk (chunk 0)');
    // A short final chunk cannot be told from the bytes after it: its tag no longer authenticates.
    const short = await refusal([alice.identity], Buffer.concat([await filePromise, Buffer.from('extra')]));
    assert.equal(short.error.message, 'chunk 3 failed authentication (altered or truncated data)');
  });

  test('what is no age file, or not one we read', async () => {
    const notAge = await refusal([alice.identity], Buffer.from('PK\u0003\u0004 a zip file, say'));
    assert.equal(notAge.error.reason, 'not-age');
    assert.equal(notAge.error.message, 'not an age file (it does not start with age-encryption.org/)');
    assert.equal((await refusal([alice.identity], Buffer.alloc(0))).error.reason, 'not-age');
    const armored = Buffer.from('-----BEGIN AGE ENCRYPTED FILE-----\nYWdlLWVuY3J5cHRpb24ub3JnL3YxCg==\n');
    assert.equal((await refusal([alice.identity], armored)).error.reason, 'unsupported');
    const crlf = Buffer.from(
      (await ageEncryptBuffer([alice.recipient], Buffer.from('x'))).toString('latin1').replace(/\n/g, '\r\n'),
      'latin1',
    );
    assert.match((await refusal([alice.identity], crlf)).error.message, /end in CR LF/);
    const v2 = Buffer.from('age-encryption.org/v2\n-> X25519 x\n\n--- x\n');
    assert.equal((await refusal([alice.identity], v2)).error.message, 'unsupported age format version (only age-encryption.org/v1 is)');
  });

  test('no recipients, no identities, a recipient of the wrong size: refused before anything is read', () => {
    assert.throws(() => ageEncrypt([], Buffer.alloc(1)), /at least one recipient/);
    assert.throws(() => ageEncrypt([new Uint8Array(31)], Buffer.alloc(1)), /recipient 1 is 31 bytes/);
    assert.throws(() => ageEncrypt([alice.recipient, new Uint8Array(32)], Buffer.alloc(1)), /recipient 2 is a low-order point/);
    assert.throws(() => ageDecrypt([], Buffer.alloc(1)), /at least one identity/);
  });
});

/**
 * Files put together by hand from the format's primitives with a file key of our choosing, for
 * what our encryptor never writes: other stanza types, malformed stanzas, an empty final chunk.
 */
describe('age files made by hand', () => {
  const fileKey = randomBytes(16);

  function x25519Stanza(recipient: Uint8Array, share?: Uint8Array): string {
    const ephemeral = x25519PrivateKey(randomBytes(32));
    const ephemeralShare = share ?? x25519PublicKey(ephemeral);
    const shared = x25519SharedSecret(ephemeral, recipient)!;
    const body = wrapFileKey(x25519WrapKey(shared, ephemeralShare, recipient), fileKey);
    return `-> X25519 ${encodeBase64(ephemeralShare)}\n${encodeBase64(body)}\n`;
  }

  function craft(stanzas: string, chunks: { plaintext: Uint8Array; last: boolean }[]): Buffer {
    const macked = `age-encryption.org/v1\n${stanzas}---`;
    const mac = createHmac('sha256', headerMacKey(fileKey)).update(macked).digest();
    const nonce = randomBytes(16);
    const key = payloadKey(fileKey, nonce);
    const sealed = chunks.map(({ plaintext, last }, index) => seal(key, chunkNonce(index, last), plaintext));
    return Buffer.concat([Buffer.from(`${macked} ${encodeBase64(mac)}\n`), nonce, ...sealed]);
  }

  const hello = [{ plaintext: Buffer.from('hello'), last: true }];

  test('stanzas of other types are ignored, whatever their arguments and body', async () => {
    const others = `-> scrypt-like a b c\n${'A'.repeat(64)}\n\n-> example.com/enigma\n\n`;
    const file = craft(`${others}${x25519Stanza(alice.recipient)}`, hello);
    assert.deepEqual(await ageDecryptBuffer([alice.identity], file), Buffer.from('hello'));
    const { error } = await refusal([alice.identity], craft(others, hello));
    assert.equal(
      error.message,
      'no identity matches any recipient of this file (it has no X25519 recipients, only scrypt-like, example.com/enigma)',
    );
  });

  test('malformed X25519 stanzas and headers refuse the file', async () => {
    const good = x25519Stanza(alice.recipient);
    const cases: [string, string, RegExp][] = [
      ['an extra argument', good.replace(/^(-> X25519 \S+)/, '$1 extra'), /has 3 arguments, not 2/],
      ['a short share', good.replace(/^-> X25519 \S+/, `-> X25519 ${encodeBase64(randomBytes(31))}`), /share is not the canonical/],
      ['a long body', good.replace(/\n[^\n]+\n$/, `\n${encodeBase64(randomBytes(33))}\n`), /body is 33 bytes, not 32/],
      ['a body with padding', good.replace(/\n([^\n]+)\n$/, '\n$1=\n'), /not base64/],
      [
        'non-canonical base64',
        good.replace(/\n([^\n]+)\n$/, (_all, body: string) => `\n${body.slice(0, -1)}${noncanonical(body.at(-1)!)}\n`),
        /not canonical base64/,
      ],
      ['a body missing its short last line', `-> X25519 ${'A'.repeat(43)}\n${'A'.repeat(64)}\n`, /is its last, shorter line missing/],
      ['a CR at a line end', good.replace(/\n$/, '\r\n'), /not base64/],
      ['an empty argument', good.replace('-> X25519 ', '-> X25519  '), /empty argument/],
      ['no stanza at all', '', /no recipient stanza/],
      ['an scrypt stanza with another', `-> scrypt ${'A'.repeat(22)} 10\n${'A'.repeat(43)}\n${good}`, /scrypt stanza must be the only/],
      ['a low-order share', x25519Stanza(alice.recipient, new Uint8Array(32)), /low-order point/],
    ];
    for (const [what, stanzas, message] of cases) {
      const { error } = await refusal([alice.identity], craft(stanzas, hello));
      assert.equal(error.reason, 'malformed-header', what);
      assert.match(error.message, message, what);
    }
  });

  test('a chunk not flagged final at the end, an empty final chunk after a full one, two final chunks', async () => {
    const stanza = x25519Stanza(alice.recipient);
    const full = randomBytes(CHUNK);
    const unflagged = await refusal([alice.identity], craft(stanza, [{ plaintext: full, last: false }]));
    assert.equal(unflagged.error.message, 'the file ends before its last chunk (truncated)');
    assert.deepEqual(unflagged.released, full);

    const empty = await refusal(
      [alice.identity],
      craft(stanza, [
        { plaintext: full, last: false },
        { plaintext: new Uint8Array(0), last: true },
      ]),
    );
    assert.equal(empty.error.reason, 'empty-last-chunk');
    assert.equal(empty.error.message, 'chunk 1 is an empty final chunk, which only an empty file may have');

    const twoFinal = await refusal(
      [alice.identity],
      craft(stanza, [
        { plaintext: full, last: true },
        { plaintext: Buffer.from('more'), last: true },
      ]),
    );
    assert.equal(twoFinal.error.reason, 'trailing-data');
    // Both ways of writing an empty file's payload: one empty final chunk, and nothing is refused.
    assert.deepEqual(
      await ageDecryptBuffer([alice.identity], craft(stanza, [{ plaintext: new Uint8Array(0), last: true }])),
      Buffer.alloc(0),
    );
    assert.equal((await refusal([alice.identity], craft(stanza, []))).error.reason, 'truncated');
  });
});

/** The base64 character that differs from `char` only in its low 2 bits, which a 32-byte value's last character leaves zero. */
function noncanonical(char: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return alphabet[alphabet.indexOf(char) ^ 1]!;
}

describe('bech32', () => {
  test('round trips, long strings included, upper case for an upper-case prefix', () => {
    for (const length of [0, 1, 32, 200]) {
      const data = randomBytes(length);
      const lower = bech32Encode('age', data);
      assert.deepEqual(bech32Decode(lower), { hrp: 'age', data: new Uint8Array(data) });
      const upper = bech32Encode('AGE-SECRET-KEY-', data);
      assert.equal(upper, upper.toUpperCase());
      assert.deepEqual(bech32Decode(upper), { hrp: 'AGE-SECRET-KEY-', data: new Uint8Array(data) });
    }
    assert.ok(bech32Encode('age', randomBytes(200)).length > 90, 'no 90-character limit');
  });

  test('BIP 173 vectors; bech32m, mixed case, foreign characters and a typo are refused', () => {
    assert.deepEqual(bech32Decode('A12UEL5L'), { hrp: 'A', data: new Uint8Array(0) });
    assert.equal(bech32Decode('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw').hrp, 'abcdef');
    assert.throws(() => bech32Decode('a1lqfn3a'), /checksum/); // valid bech32m (BIP 350), not bech32
    assert.throws(() => bech32Decode('A12uEL5L'), /mix upper and lower case/);
    assert.throws(() => bech32Decode(SPEC_RECIPIENT.replace('zvky', 'zvkz')), /checksum/);
    assert.throws(() => bech32Decode('x1b4n0q5v'), /outside its alphabet/);
    assert.throws(() => bech32Decode('li1dgmt3'), /too short for its checksum/);
    assert.throws(() => bech32Decode('1qzzfhee'), /no human-readable part/);
    assert.throws(() => bech32Decode('A1G7SGD8'), /checksum/); // computed over the upper-case form
  });

  test('age-keygen keys: the identity gives the recipient age-keygen -y printed', () => {
    for (const [identity, recipient] of [
      [KEYGEN_IDENTITY, KEYGEN_RECIPIENT],
      [SPEC_IDENTITY, SPEC_RECIPIENT],
    ] as const) {
      const [secret] = parseIdentityFile(identity);
      assert.equal(recipientOf(secret!), recipient);
      assert.equal(bech32Encode('AGE-SECRET-KEY-', secret!), identity);
      assert.equal(bech32Encode('age', parseRecipient(recipient)), recipient);
    }
  });
});

describe('age keys as text', () => {
  test('an identity file: comments, blank lines, CRLF, several identities', () => {
    const file = [
      '# created: 2026-12-06T16:48:31Z',
      `# public key: ${KEYGEN_RECIPIENT}`,
      KEYGEN_IDENTITY,
      '',
      '   ',
      `${SPEC_IDENTITY}\r`,
      '',
    ].join('\n');
    const identities = parseIdentityFile(file);
    assert.deepEqual(identities.map(recipientOf), [KEYGEN_RECIPIENT, SPEC_RECIPIENT]);
  });

  test('a bad identity line is named by number and reason, never quoted', () => {
    const typo = KEYGEN_IDENTITY.replace('Y9VND', 'Y9VNE');
    const cases: [string, RegExp][] = [
      [typo, /checksum/],
      [KEYGEN_IDENTITY.toLowerCase(), /upper case/],
      [KEYGEN_RECIPIENT, /is a recipient/],
      [`AGE-SECRET-KEY-PQ-1${KEYGEN_IDENTITY.slice(16)}`, /post-quantum/],
      [KEYGEN_IDENTITY.slice(0, -10), /checksum|padding|bytes/],
      ['AGE-SECRET-KEY-1', /too short/],
    ];
    for (const [line, reason] of cases) {
      const error = (() => {
        try {
          parseIdentityFile(`# my key\n\n${line}\n`);
        } catch (caught) {
          return caught as AgeError;
        }
        assert.fail(`accepted ${reason}`);
      })();
      assert.ok(error instanceof AgeError);
      assert.match(error.message, /^line 3 of the identity file is not an age X25519 identity \(AGE-SECRET-KEY-1…\): /);
      assert.match(error.message, reason);
      // Not the line, nor any 8 characters of it past the prefix.
      const secretPart = line.slice(16).toUpperCase();
      for (let start = 0; start + 8 <= secretPart.length; start++) {
        assert.ok(!error.message.toUpperCase().includes(secretPart.slice(start, start + 8)), `${error.message} quotes the line`);
      }
    }
    assert.throws(() => parseIdentityFile('# nothing here\n\n'), /holds no identities/);
  });

  test('recipients: a list separated by commas, spaces and lines, with comments', () => {
    const list = `${KEYGEN_RECIPIENT}, ${SPEC_RECIPIENT}\n# the operator's second key\n  ${recipientOf(carol.identity)}  # carol\n`;
    assert.deepEqual(
      parseRecipients(list).map((key) => bech32Encode('age', key)),
      [KEYGEN_RECIPIENT, SPEC_RECIPIENT, recipientOf(carol.identity)],
    );
    assert.throws(() => parseRecipients(' ,\n# none\n'), /holds no age recipients/);
    assert.throws(
      () => parseRecipients(`${KEYGEN_RECIPIENT},age1nope`),
      /^AgeError: recipient 2 of the list: the recipient age1nope is not/,
    );
  });

  test('bad recipients are refused with the reason; a secret key given as one is not quoted', () => {
    assert.throws(
      () => parseRecipient(KEYGEN_IDENTITY),
      (error: Error) =>
        /is a secret key \(an identity\), not a recipient/.test(error.message) && !error.message.includes(KEYGEN_IDENTITY.slice(16, 30)),
    );
    assert.throws(() => parseRecipient(KEYGEN_RECIPIENT.toUpperCase()), /lower case/);
    assert.throws(
      () => parseRecipient(bech32Encode('age1pq', randomBytes(40))),
      /age1pq1… recipients \(post-quantum or plugin\) are not supported/,
    );
    assert.throws(() => parseRecipient(bech32Encode('age', randomBytes(33))), /33 bytes, not a 32-byte X25519 key/);
    assert.throws(() => parseRecipient(bech32Encode('age', new Uint8Array(32))), /low-order point/);
    assert.throws(() => parseRecipient('npub1xyz'), /not an age X25519 recipient/);
  });

  test('a generated identity: its recipient, and a file for it', async () => {
    const { identity, recipient } = generateIdentity();
    assert.match(identity, /^AGE-SECRET-KEY-1[0-9A-Z]{58}$/);
    assert.match(recipient, /^age1[0-9a-z]{58}$/);
    const [secret] = parseIdentityFile(identity);
    assert.equal(recipientOf(secret!), recipient);
    const file = await ageEncryptBuffer(parseRecipients(recipient), Buffer.from('offsite'));
    assert.deepEqual(await ageDecryptBuffer([secret!], file), Buffer.from('offsite'));
  });
});
