import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertNoConsoleErrors, useBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

describe('the API reference (/api/docs) in Chromium', () => {
  const browser = useBrowser();
  let svc: TestService;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
  });
  after(() => svc.close());

  test('renders the operations from /api/openapi.json, under its CSP, asking nothing of another origin', async () => {
    const page = await browser.newPage();
    const origin = new URL(svc.baseUrl).origin;
    const requested: string[] = [];
    page.on('request', (sent) => requested.push(sent.url()));
    const response = await page.goto(`${svc.baseUrl}/api/docs`);
    assert.equal(response?.status(), 200);
    assert.match(String(response?.headers()['content-security-policy']), /script-src 'self';.*connect-src 'self'/);
    await page.getByText('/api/channels/{channelRef}/folders/{folderName}/files/{filename}/restore').first().waitFor();
    await page.getByText('Restore a file from a backup', { exact: false }).first().waitFor();
    await page.getByRole('button', { name: 'Authorize' }).waitFor();
    assert.ok(requested.includes(`${origin}/api/openapi.json`), requested.join('\n'));
    assert.deepEqual(
      requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:')),
      [],
      'no request left the origin',
    );
    assertNoConsoleErrors(page);
  });

  test('the address with a trailing slash leads to the same page', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${svc.baseUrl}/api/docs/`);
    assert.equal(response?.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/api/docs');
    await page.getByRole('button', { name: 'Authorize' }).waitFor();
  });
});
