import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertNoSecretsInOutput, configuredSecrets, noteCredential, noteRequestCredentials, noteSecret } from '../helpers/log-secrets.ts';

/**
 * The scan every service's output goes through when it stops (see log-secrets.ts): what it must
 * catch, and what it must let through, so that a leak fails the suite and a banner does not.
 */
describe('the log-secret scan', () => {
  const signature = `0x${'ab'.repeat(65)}`;
  const line = (fields: object) => JSON.stringify({ level: 30, msg: 'request completed', ...fields });
  const fails = (output: Parameters<typeof assertNoSecretsInOutput>[0], configured: string[] = [], answers = false) =>
    assert.throws(() => assertNoSecretsInOutput(output, configured, { answers }), /a (log )?line holds/);
  const passes = (output: Parameters<typeof assertNoSecretsInOutput>[0], configured: string[] = [], answers = false) =>
    assertNoSecretsInOutput(output, configured, { answers });

  test('a log line with a credential by its shape, or a signed link’s signature under any spelling of its name, fails', () => {
    fails({ stdout: line({ headers: { 'x-sig': signature } }) });
    fails({ stdout: line({ url: '/f?expires=1&signature=abcdef' }) });
    fails({ stdout: line({ url: '/f?expires=1&%73ignature=abcdef' }) });
    fails({ stderr: line({ url: '/f?SIGNATURE=abcdef' }) });
    passes({ stdout: line({ url: '/f?expires=1&%73ignature=[redacted]' }) });
    passes({ stdout: line({ url: '/f?signatures=abcdef&q=signature' }) });
  });

  test('a credential this run sent fails in a log line or on standard error, not in a banner or a command’s answer', () => {
    const plain = `Login with a plain message ${Date.now()}`;
    noteCredential(plain);
    fails({ stdout: line({ msg: `got ${plain}` }) });
    fails({ stderr: `wallet-admin: refused ${plain}` });
    passes({ stdout: `  -H 'X-MES: ${plain}'` });
    passes({ stdout: JSON.stringify({ 'X-SIG': signature, 'X-MES': plain }) }, [], true);
    // Noted from a request: the wallet headers and a link's signature, however its name is spelt.
    noteRequestCredentials(new URL('http://127.0.0.1/f?expires=1&%73ignature=link-signature-0123456789'), {
      'X-SIG': 'sig-value-0123456789',
    });
    fails({ stdout: line({ msg: 'link-signature-0123456789' }) });
    fails({ stdout: line({ msg: 'sig-value-0123456789' }) });
  });

  test('a secret of the run, or of the settings, fails in any line of either stream', () => {
    const password = `keystore-password-${Date.now()}`;
    noteSecret(password);
    fails({ stdout: `Enter the password: ${password}` });
    fails({ stdout: JSON.stringify({ ok: password }) }, [], true);
    const configured = configuredSecrets({
      DATABASE_URL: 'postgres://app:Db%2FPassw0rd@127.0.0.1:5432/app',
      FILE_URL_SECRET: 'a-file-url-secret-of-this-run',
      PORT: '8080',
    });
    assert.deepEqual(configured, ['Db%2FPassw0rd', 'Db/Passw0rd', 'a-file-url-secret-of-this-run']);
    fails({ stderr: 'could not connect: password Db/Passw0rd refused' }, configured);
    fails({ stdout: line({ msg: 'a-file-url-secret-of-this-run' }) }, configured);
    passes(
      { stdout: line({ msg: 'listening on http://127.0.0.1:8080' }), stderr: 'DATABASE_URL postgres://***@127.0.0.1:5432/app' },
      configured,
    );
  });
});
