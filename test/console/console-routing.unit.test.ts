import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { invitationTokenOf } from '../../src/console/invitation-token.ts';
import { hrefOf, parseRoute, type Route } from '../../src/console/routing.ts';

describe("the console's tenant pages in the URL", () => {
  test('Admins, Channel settings and the tenant audit log (its filters kept) go to their fragment and back', () => {
    const routes: Route[] = [
      { view: 'admins' },
      { view: 'channel-settings' },
      { view: 'tenant-audit', filters: {} },
      {
        view: 'tenant-audit',
        filters: { action: 'admin.update', targetAdminId: 'adm_2', channelId: 'chn_1', result: 'ok', adminId: 'adm_1' },
      },
    ];
    for (const route of routes) assert.deepEqual(parseRoute(hrefOf(route)), route);
    assert.equal(hrefOf({ view: 'tenant-audit', filters: { action: 'wallet.add' } }), '#/audit?action=wallet.add');
    // A channel's own audit log stays where it was.
    assert.deepEqual(parseRoute('#/channels/main/audit?action=upload'), { view: 'audit', channel: 'main', filters: { action: 'upload' } });
  });

  test('the proposals: pending, of another status, and one of them (as a held request links to it)', () => {
    const routes: Route[] = [
      { view: 'proposals' },
      { view: 'proposals', status: 'executed' },
      { view: 'proposals', status: 'any' },
      { view: 'proposals', id: 'prp_01J/x' },
    ];
    for (const route of routes) assert.deepEqual(parseRoute(hrefOf(route)), route);
    assert.equal(hrefOf({ view: 'proposals', id: 'prp_1' }), '#/proposals/prp_1');
    assert.deepEqual(parseRoute('#/proposals?status=nonsense'), { view: 'proposals' });
  });

  test("an invitation's token is read from the fragment of /console/invite only", () => {
    assert.equal(invitationTokenOf({ pathname: '/console/invite', hash: '#token=abc-123' }), 'abc-123');
    assert.equal(invitationTokenOf({ pathname: '/console/invite/', hash: '#token=abc' }), 'abc');
    assert.equal(invitationTokenOf({ pathname: '/console/invite', hash: '' }), '');
    assert.equal(invitationTokenOf({ pathname: '/console/', hash: '#token=abc' }), undefined);
  });
});
