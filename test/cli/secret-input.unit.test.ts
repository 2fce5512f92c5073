import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { UsageError } from '../../src/cli/command.ts';
import { promptHidden, readPassword, type TerminalInput } from '../../src/cli/secret-input.ts';

/** A terminal as the prompt sees one: keystrokes in, raw mode switched, everything written kept. */
function terminal() {
  const input = new PassThrough() as PassThrough & TerminalInput;
  const modes: boolean[] = [];
  input.isTTY = true;
  input.setRawMode = (mode: boolean) => modes.push(mode);
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  return { input, output, modes, shown: () => shown };
}

describe('password input', () => {
  test('the prompt reads a line without echoing it, with backspace, and restores the terminal', async () => {
    const tty = terminal();
    const answer = promptHidden(tty.input, tty.output, 'Keystore password: ');
    tty.input.write('s3creX');
    tty.input.write('\x7ft\x1b[A\r');
    assert.equal(await answer, 's3cret');
    assert.deepEqual(tty.modes, [true, false]);
    assert.equal(tty.shown(), 'Keystore password: \n');
  });

  test('Ctrl-C at the prompt cancels instead of signing', async () => {
    const tty = terminal();
    const answer = promptHidden(tty.input, tty.output, 'Keystore password: ');
    tty.input.write('abc\x03');
    await assert.rejects(answer, (error: unknown) => error instanceof UsageError && /Cancelled/.test(error.message));
    assert.deepEqual(tty.modes, [true, false]);
  });

  test('--password-file gives its first line, --password-env a variable, and neither on no terminal is a usage error', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-password-'));
    try {
      const notATerminal = new PassThrough() as PassThrough & TerminalInput;
      const io = { input: notATerminal, output: new PassThrough(), env: { KEY_PASSWORD: 'from env' } };
      for (const [content, expected] of [
        ['pw one\n', 'pw one'],
        ['pw two\r\nsecond line\n', 'pw two'],
        ['no newline', 'no newline'],
        [' spaces kept \n', ' spaces kept '],
      ]) {
        await writeFile(path.join(dir, 'pw'), content!);
        assert.equal(await readPassword({ file: path.join(dir, 'pw') }, io), expected);
      }
      assert.equal(await readPassword({ env: 'KEY_PASSWORD' }, io), 'from env');
      await assert.rejects(readPassword({ env: 'UNSET_VARIABLE' }, io), /UNSET_VARIABLE, which is not set/);
      await assert.rejects(readPassword({ file: path.join(dir, 'missing') }, io), /Cannot read --password-file .*ENOENT/);
      // Nothing will ever be typed into a stdin that is no terminal (CI): refused at once, not awaited.
      await assert.rejects(readPassword({}, io), (error: unknown) => error instanceof UsageError && /--password-file/.test(error.message));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
