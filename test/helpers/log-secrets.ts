import assert from 'node:assert/strict';

/**
 * What must never be in a log line: credentials by their shape (a 65-byte signature, a signed
 * message, a link's signature), the credentials this run has sent or been given (noteCredential:
 * every X-SIG, X-MES and link signature that went through request(), and every header the wallet
 * helpers signed), and its secrets (noteSecret, and what configuredSecrets finds in a service's
 * settings: FILE_URL_SECRET, tokens, passwords, a database URL's password). Each failure names
 * what it found and the line.
 *
 * Every service a test starts is held to it when it stops: in this process (startTestService) and
 * in its own (spawnService, runCli, the crash workers), whose output is captured and scanned.
 */
const CREDENTIAL_SHAPES: [string, RegExp][] = [
  ['an X-SIG signature (65 bytes of hex)', /0x[0-9a-fA-F]{130}/],
  ['an X-MES value in base64', /base64:[A-Za-z0-9+/]{40}/],
  ['a Sign-In with Ethereum message', /wants you to sign in with your Ethereum account/],
  ['a private key', /0x[0-9a-fA-F]{64}(?![0-9a-fA-F])/],
];

/** A query parameter as a log line may hold one: `?name=value` or `&name=value`, the name as sent. */
const QUERY_PARAMETER = /[?&]([^=&"\s#?]+)=([^&"\s#]*)/g;

/** Shorter values are too likely to be found in a log line by chance ("hello", a 4-digit number). */
const MIN_LENGTH = 12;

const credentials = new Set<string>();
const secrets = new Set<string>();

/** A credential this run sent or received: it may appear where it is the point (a CLI's printed headers), never in a log line. */
export function noteCredential(value: string | undefined): void {
  if (value !== undefined && value.length >= MIN_LENGTH) credentials.add(value);
}

/** A secret of this run (a keystore's password, say): it may appear in no line any process writes. */
export function noteSecret(value: string | undefined): void {
  if (value !== undefined && value.length >= 8) secrets.add(value);
}

/** The credentials a request carries: its wallet headers, and a signed link's signature (by the parameter's decoded name). */
export function noteRequestCredentials(url: URL, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) if (/^x-(sig|mes)$/i.test(name)) noteCredential(value);
  noteLinkSignatures(url.search);
}

/** Signed links a text holds (a restore's answer): their signatures. */
export function noteLinkSignatures(text: string): void {
  if (!/signature|%/i.test(text)) return;
  for (const [, name, value] of text.matchAll(QUERY_PARAMETER)) if (isSignatureParameter(name!)) noteCredential(value);
}

function isSignatureParameter(name: string): boolean {
  try {
    return decodeURIComponent(name.replaceAll('+', ' ')).toLowerCase() === 'signature';
  } catch {
    return false;
  }
}

/** Fails, naming the line and what it held, when any log line holds a credential, one of this run's, or one of `configured`. */
export function assertNoSecretsInLogs(lines: readonly string[], configured: readonly (string | undefined)[] = []): void {
  for (const line of lines) {
    for (const [what, pattern] of CREDENTIAL_SHAPES) assert.ok(!pattern.test(line), `a log line holds ${what}: ${line.slice(0, 400)}`);
    for (const [, name, value] of line.matchAll(QUERY_PARAMETER)) {
      assert.ok(
        !isSignatureParameter(name!) || value === '[redacted]' || value === '',
        `a log line holds a signed link's signature (${name}=): ${line.slice(0, 400)}`,
      );
    }
  }
  assertNoneOf(lines, credentials, 'a credential this run sent');
  assertNoneOf(lines, [...secrets, ...known(configured)], 'a secret of this run');
}

/** What a process wrote, stream by stream. */
export interface ProcessOutput {
  stdout?: string;
  stderr?: string;
}

/**
 * Checks what a service or CLI process wrote. Its JSON lines on either stream are log lines
 * (assertNoSecretsInLogs). Its other lines hold no secret of this run; standard error's no
 * credential either. Standard output's other lines may hold credentials by design: the demo's
 * ready-to-paste curl, the headers `wallet-admin sign` prints. With `answers`, standard output is
 * the command's answer (a CLI's --json object is no log line) and only held to the secrets.
 */
export function assertNoSecretsInOutput(
  output: ProcessOutput,
  configured: readonly (string | undefined)[],
  options: { answers?: boolean } = {},
): void {
  const lines = (text: string | undefined) => (text ?? '').split('\n').filter((line) => line !== '');
  const isLogLine = (line: string) => line.startsWith('{');
  const stdout = lines(output.stdout);
  const stderr = lines(output.stderr);
  const logLines = [...(options.answers ? [] : stdout.filter(isLogLine)), ...stderr.filter(isLogLine)];
  assertNoSecretsInLogs(logLines, configured);
  assertNoneOf(stderr, credentials, 'a credential this run sent');
  assertNoneOf([...stdout, ...stderr], [...secrets, ...known(configured)], 'a secret of this run');
}

function known(values: readonly (string | undefined)[]): string[] {
  return values.filter((value): value is string => typeof value === 'string' && value.length >= 8);
}

/** One search of all the lines per value, then the line it is in. */
function assertNoneOf(lines: readonly string[], values: Iterable<string>, what: string): void {
  const text = lines.join('\n');
  for (const value of values) {
    if (!text.includes(value)) continue;
    const line = lines.find((candidate) => candidate.includes(value)) ?? '';
    assert.fail(`a line holds ${what}: ${line.slice(0, 400)}`);
  }
}

/**
 * The secrets among the settings a test gave a service or CLI: the values of those named like a
 * secret, and the password of any URL among them (DATABASE_URL's, REDIS_URL's), as given and decoded.
 */
export function configuredSecrets(env: Record<string, string | undefined>): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (/SECRET|TOKEN|PASSWORD|PASSWD/.test(name)) found.push(value);
    const password = urlPassword(value);
    if (password !== undefined) found.push(password, decodeURIComponent(password));
  }
  return found;
}

function urlPassword(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return undefined;
  try {
    const { password } = new URL(value);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}
