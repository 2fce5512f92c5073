import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateIdentity } from '../../src/age/age-keys.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

const recipient = generateIdentity().recipient;

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

/** OFFSITE_URL and its settings (docs/offsite.md, "The target"): read once at start-up, every problem named. */
describe('off-site settings', () => {
  test('unset: no copy, nothing else read as one', () => {
    assert.equal(loadConfig({}).offsite, undefined);
    assert.deepEqual(problems({ OFFSITE_RECIPIENTS: recipient }), ['OFFSITE_RECIPIENTS applies only with OFFSITE_URL']);
  });

  test('a directory target with its recipients', () => {
    const config = loadConfig({ DATA_DIR: '/srv/data', OFFSITE_URL: 'file:///mnt/nas/copies', OFFSITE_RECIPIENTS: recipient });
    assert.deepEqual(config.offsite?.target, { kind: 'file', path: '/mnt/nas/copies' });
    assert.deepEqual(config.offsite?.recipients, [recipient]);
    assert.equal(config.offsite?.s3, undefined);
  });

  test('refused: no recipients, a bad one, a directory inside DATA_DIR, lock days on a directory, another scheme', () => {
    assert.match(problems({ OFFSITE_URL: 'file:///mnt/copies' }).join('\n'), /OFFSITE_RECIPIENTS must list the age recipients/);
    assert.match(problems({ OFFSITE_URL: 'file:///mnt/copies', OFFSITE_RECIPIENTS: 'age1nope' }).join('\n'), /^OFFSITE_RECIPIENTS: /m);
    assert.match(
      problems({ DATA_DIR: '/srv/data', OFFSITE_URL: 'file:///srv/data/copies', OFFSITE_RECIPIENTS: recipient }).join('\n'),
      /shares a directory with DATA_DIR/,
    );
    assert.match(
      problems({ OFFSITE_URL: 'file:///mnt/copies', OFFSITE_RECIPIENTS: recipient, OFFSITE_LOCK_DAYS: '30' }).join('\n'),
      /OFFSITE_LOCK_DAYS needs an s3:\/\/ OFFSITE_URL/,
    );
    assert.match(problems({ OFFSITE_URL: 'ftp://host/copies', OFFSITE_RECIPIENTS: recipient }).join('\n'), /OFFSITE_URL must be file/);
  });

  test("an s3 target needs credentials of its own: never the primary's, never the primary bucket; the secret is never shown", () => {
    const base = { OFFSITE_URL: 's3://copies/wallet', OFFSITE_RECIPIENTS: recipient };
    assert.match(problems(base).join('\n'), /OFFSITE_S3_ACCESS_KEY_ID and OFFSITE_S3_SECRET_ACCESS_KEY must be set/);
    const secret = 'the-offsite-secret-value';
    const shared = problems({
      ...base,
      AWS_ACCESS_KEY_ID: 'AKIA1',
      OFFSITE_S3_ACCESS_KEY_ID: 'AKIA1',
      OFFSITE_S3_SECRET_ACCESS_KEY: secret,
    });
    assert.match(shared.join('\n'), /must differ from the primary bucket's AWS_ACCESS_KEY_ID/);
    const same = problems({
      ...base,
      STORAGE: 's3',
      S3_BUCKET: 'copies',
      OFFSITE_S3_ACCESS_KEY_ID: 'other',
      OFFSITE_S3_SECRET_ACCESS_KEY: secret,
    });
    assert.match(same.join('\n'), /names the primary bucket copies/);
    assert.ok(![...shared, ...same].some((line) => line.includes(secret)), 'no problem shows the secret');
    const config = loadConfig({
      ...base,
      OFFSITE_S3_ACCESS_KEY_ID: 'other',
      OFFSITE_S3_SECRET_ACCESS_KEY: secret,
      OFFSITE_S3_FORCE_PATH_STYLE: 'true',
    });
    assert.deepEqual(config.offsite?.target, { kind: 's3', bucket: 'copies', prefix: 'wallet' });
    assert.equal(config.offsite?.s3?.forcePathStyle, true);
  });
});
