import { readFile, stat } from 'node:fs/promises';
import { UsageError } from './command.ts';

/** What the hidden prompt needs of a terminal (process.stdin on a TTY; a stand-in in tests). */
export interface TerminalInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** Reads a file named by an option, refusing one larger than a sane size for what it should hold. */
export async function readOptionFile(file: string, option: string, maxBytes: number): Promise<Buffer> {
  try {
    // A FIFO or device has no meaningful size: read it and check after.
    const info = await stat(file);
    if (info.isFile() && info.size > maxBytes) throw new UsageError(`--${option} ${file} is larger than ${maxBytes} bytes`);
    const bytes = await readFile(file);
    if (bytes.length > maxBytes) throw new UsageError(`--${option} ${file} is larger than ${maxBytes} bytes`);
    return bytes;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`Cannot read --${option} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Everything piped in, or a usage error when stdin is a terminal (a person, not a pipe, is there). */
export async function readPipedInput(input: TerminalInput, what: string, maxBytes: number): Promise<Buffer> {
  if (input.isTTY) throw new UsageError(`Pipe ${what} into stdin, or name its file`);
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    length += bytes.length;
    if (length > maxBytes) throw new UsageError(`stdin holds more than ${maxBytes} bytes; that is not ${what}`);
    chunks.push(bytes);
  }
  if (length === 0) throw new UsageError(`stdin is empty; pipe ${what} into it, or name its file`);
  return Buffer.concat(chunks);
}

/**
 * Asks for a secret on the terminal without echoing it. Raw mode turns off the terminal's echo and
 * line editing, so Enter, backspace and Ctrl-C are handled here.
 */
export function promptHidden(input: TerminalInput, output: NodeJS.WritableStream, prompt: string): Promise<string> {
  const setRawMode = input.setRawMode?.bind(input);
  if (!input.isTTY || !setRawMode) throw new UsageError('No terminal to ask for the password on');
  output.write(prompt);
  setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let secret = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.off('end', onEnd);
      setRawMode(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(secret);
    };
    const onEnd = () => finish();
    const onData = (chunk: string | Buffer) => {
      // An arrow or function key arrives as an escape sequence (ESC [ … final letter): no part of a password.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is the character this removes.
      const text = chunk.toString().replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b./g, '');
      for (const char of text) {
        if (char === '\r' || char === '\n' || char === '\x04') return finish();
        if (char === '\x03') return finish(new UsageError('Cancelled'));
        if (char === '\x7f' || char === '\b') secret = [...secret].slice(0, -1).join('');
        else if (char >= ' ') secret += char;
      }
    };
    input.on('data', onData);
    input.on('end', onEnd);
  });
}

export interface PasswordSources {
  file?: string;
  env?: string;
}

const PASSWORD_FILE_MAX_BYTES = 64 * 1024;

/**
 * The keystore password from --password-file (its first line), --password-env (a variable's value),
 * or else a hidden prompt on the terminal. Never from argv (it would show in `ps` and shell history),
 * and never a wait on a stdin nobody types into: without a terminal and a source it is a usage error.
 */
export async function readPassword(
  sources: PasswordSources,
  io: { input: TerminalInput; output: NodeJS.WritableStream; env: NodeJS.ProcessEnv },
): Promise<string> {
  if (sources.file !== undefined && sources.env !== undefined) throw new UsageError('Give --password-file or --password-env, not both');
  if (sources.file !== undefined) {
    const text = (await readOptionFile(sources.file, 'password-file', PASSWORD_FILE_MAX_BYTES)).toString('utf8');
    const end = text.indexOf('\n');
    return (end < 0 ? text : text.slice(0, end)).replace(/\r$/, '');
  }
  if (sources.env !== undefined) {
    const value = io.env[sources.env];
    if (value === undefined) throw new UsageError(`--password-env names ${sources.env}, which is not set`);
    return value;
  }
  if (!io.input.isTTY) {
    throw new UsageError('The keystore needs a password: give --password-file FILE or --password-env NAME (no terminal to ask on)');
  }
  return promptHidden(io.input, io.output, 'Keystore password: ');
}
