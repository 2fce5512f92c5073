import assert from 'node:assert/strict';

/**
 * What must never be in a log line: credentials by their shape (a 65-byte signature, a signed
 * message, a link's signature), and the secrets a test configured (FILE_URL_SECRET, tokens,
 * passwords). Each pattern names what it found.
 */
const CREDENTIAL_SHAPES: [string, RegExp][] = [
  ['an X-SIG signature (65 bytes of hex)', /0x[0-9a-fA-F]{130}/],
  ['an X-MES value in base64', /base64:[A-Za-z0-9+/]{40}/],
  ['a Sign-In with Ethereum message', /wants you to sign in with your Ethereum account/],
  ['a signed link’s signature', /[?&]signature=(?!\[redacted\])[^&"\s]/i],
  ['a private key', /0x[0-9a-fA-F]{64}(?![0-9a-fA-F])/],
];

/** Fails, naming the line and what it held, when any line holds a credential or one of `secrets`. */
export function assertNoSecretsInLogs(lines: readonly string[], secrets: readonly (string | undefined)[] = []): void {
  const known = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 8);
  for (const line of lines) {
    for (const [what, pattern] of CREDENTIAL_SHAPES) assert.ok(!pattern.test(line), `a log line holds ${what}: ${line.slice(0, 400)}`);
    for (const secret of known) assert.ok(!line.includes(secret), `a log line holds a configured secret: ${line.slice(0, 400)}`);
  }
}

/** The values of the settings that are secrets, as a test passed them to a service. */
export function configuredSecrets(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([name]) => /SECRET|TOKEN|PASSWORD/.test(name))
    .map(([, value]) => value)
    .filter((value): value is string => value !== undefined);
}
