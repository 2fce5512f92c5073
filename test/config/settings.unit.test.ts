import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { SETTINGS } from '../../src/config/settings.ts';

const CONFIGURATION = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

/** The rows of docs/configuration.md's table: each variable with its default, as written there. */
function documentedSettings(): Map<string, string> {
  const lines = CONFIGURATION.split('\n');
  const head = lines.indexOf('| Variable | Default | Accepts | Meaning |');
  assert.ok(head > 0, "docs/configuration.md's table");
  const rows = new Map<string, string>();
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break;
    const [names, fallbacks] = line
      .split(/(?<!\\)\|/)
      .slice(1, 3)
      .map((cell) => cell.trim());
    // `S3_ENDPOINT` / `S3_BUCKET` … share a row, their defaults split the same way.
    const nameList = names!.split(' / ').map((n) => n.replaceAll('`', ''));
    const fallbackList = nameList.length > 1 ? fallbacks!.split(' / ') : [fallbacks!];
    assert.equal(fallbackList.length, nameList.length, line);
    for (const [i, name] of nameList.entries()) rows.set(name, fallbackList[i]!.replaceAll('`', ''));
  }
  return rows;
}

test("docs/configuration.md's table and the settings serve --help prints name the same variables, with the same defaults", () => {
  const documented = documentedSettings();
  assert.deepEqual([...documented.keys()].sort(), SETTINGS.map((s) => s.name).sort());
  for (const setting of SETTINGS) assert.equal(setting.fallback, documented.get(setting.name), setting.name);
});

test('the settings list holds exactly the variables loadConfig reads', () => {
  const read = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_, name) {
      if (typeof name === 'string') read.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  // S3_* are read only with STORAGE=s3: read them too.
  const s3 = new Proxy({ STORAGE: 's3', S3_BUCKET: 'b' } as Record<string, string | undefined>, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return typeof name === 'string' ? target[name] : undefined;
    },
  });
  loadConfig(s3);
  // OFFSITE_* beyond OFFSITE_URL are read only with an s3:// OFFSITE_URL: read them too.
  const offsite = new Proxy(
    {
      OFFSITE_URL: 's3://copies/wallet-admin',
      OFFSITE_RECIPIENTS: 'age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p',
      OFFSITE_S3_ACCESS_KEY_ID: 'k',
      OFFSITE_S3_SECRET_ACCESS_KEY: 's',
    } as Record<string, string | undefined>,
    {
      get(target, name) {
        if (typeof name === 'string') read.add(name);
        return typeof name === 'string' ? target[name] : undefined;
      },
    },
  );
  loadConfig(offsite);
  // AWS_ACCESS_KEY_ID is the AWS SDK's own variable, which the off-site key is compared against: not a setting of ours.
  assert.deepEqual([...read].filter((name) => !name.startsWith('AWS_')).sort(), SETTINGS.map((s) => s.name).sort());
});
