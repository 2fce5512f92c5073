import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { acceptedValues, CONFIGURATION_DOC, renderConfigurationDoc } from '../../scripts/config-doc.ts';
import { SETTINGS } from '../../src/config/settings.ts';

test('docs/configuration.md is what scripts/config-doc.ts renders from src/config/settings.ts now', () => {
  // Were a setting added, renamed or reworded without regenerating, the committed page would say
  // something the service no longer does.
  assert.equal(
    readFileSync(CONFIGURATION_DOC, 'utf8'),
    renderConfigurationDoc(),
    'docs/configuration.md is out of date: run node --import tsx scripts/config-doc.ts',
  );
});

test("the page names every setting once, each with the check config.ts makes of it, in config.ts's own words", () => {
  const page = renderConfigurationDoc();
  for (const setting of SETTINGS) {
    assert.equal(page.split(`\n| \`${setting.name}\` |`).length, 2, setting.name);
  }
  // The Accepts column comes from loadConfig's refusals, not from text kept beside them.
  assert.equal(acceptedValues(SETTINGS.find((s) => s.name === 'AUTH_STATE_REFRESH')!), 'a whole number from 0 to 5');
  assert.equal(acceptedValues(SETTINGS.find((s) => s.name === 'LOG_LEVEL')!), 'one of fatal, error, warn, info, debug, trace, silent');
  assert.equal(acceptedValues(SETTINGS.find((s) => s.name === 'S3_TIMEOUT')!), 'a whole number from 1 to 3600');
  assert.equal(acceptedValues(SETTINGS.find((s) => s.name === 'CORS_EXTRA_ALLOW_HEADERS')!), 'a list, each a header name such as If-Match');
  assert.equal(acceptedValues(SETTINGS.find((s) => s.name === 'METRICS_TOKEN')!), undefined, 'any token is taken');
});
