import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inOptionNames } from '../../src/cli/option-names.ts';

const DIFF = ['channel', 'tenant', 'from', 'from-at', 'to', 'to-at', 'folder', 'limit'];
const RESTORE = ['channel', 'tenant', 'folder', 'file', 'backup', 'version', 'at'];

test('a refusal from the layers below is restated in the options of the command that passed the values', () => {
  const cases: [string, readonly string[], string][] = [
    // What the file services say today, and the shapes a refusal naming parameters as sent takes.
    ['toAt is older than fromAt; swap them', DIFF, '--to-at is older than --from-at; swap them'],
    [
      'to (20260101_000000) is older than from (20260102_000000); swap them',
      DIFF,
      '--to (20260101_000000) is older than --from (20260102_000000); swap them',
    ],
    [
      'toAt (2026-01-01T00:00:00Z) is older than from (20260102_000000)',
      DIFF,
      '--to-at (2026-01-01T00:00:00Z) is older than --from (20260102_000000)',
    ],
    ['Give to or toAt, not both', DIFF, 'Give --to or --to-at, not both'],
    ["folder name must not contain '/'", DIFF, "--folder must not contain '/'"],
    [
      'Give one of backupTimestamp, versionId or at, not backupTimestamp and at',
      RESTORE,
      'Give one of --backup, --version or --at, not --backup and --at',
    ],
    [
      'at (2999-01-01T00:00:00Z) is in the future; the newest state is now',
      RESTORE,
      '--at (2999-01-01T00:00:00Z) is in the future; the newest state is now',
    ],
    [
      'Wallet address must be 0x followed by 40 hexadecimal digits, got "0x1"',
      ['tenant', 'wallet', 'name'],
      '--wallet must be 0x followed by 40 hexadecimal digits, got "0x1"',
    ],
    ['X-SIG has r or s outside the secp256k1 range', ['signature', 'address'], '--signature has r or s outside the secp256k1 range'],
  ];
  for (const [message, options, expected] of cases) assert.equal(inOptionNames(message, options), expected, message);
});

test('words of the sentence, and names of options the command does not have, stay as they are', () => {
  const unchanged: [string, readonly string[]][] = [
    ["The channel's state at 2026-01-01T00:00:00.000Z is no longer retained", RESTORE],
    ['Channel chn_1 and admin adm_1 belong to different tenants', DIFF],
    ['Restore from the newest backup holding it', DIFF],
    // No --from here: "from" is a word, not this command's option.
    ['to (x) is older than from (y)', RESTORE],
    ['backupTimestamps', RESTORE],
  ];
  for (const [message, options] of unchanged) assert.equal(inOptionNames(message, options), message, message);
});
