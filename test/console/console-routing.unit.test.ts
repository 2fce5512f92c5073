import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { invitationTokenOf } from '../../src/console/invitation-token.ts';
import { hrefOf, isRouteFragment, parseRoute, type Route, titleOf } from '../../src/console/routing.ts';

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

describe("the console's page titles and in-page fragments", () => {
  test("each view's page title names the view, then where it is, then the console", () => {
    const names = new Map([['chn_1', 'demo']]);
    const channelName = (ref: string) => names.get(ref) ?? ref;
    const titles: [Parameters<typeof titleOf>[0], string][] = [
      [{ view: 'sign-in' }, 'Sign in · wallet-admin'],
      [{ view: 'invitation' }, 'Invitation · wallet-admin'],
      [{ view: 'home' }, 'Home · wallet-admin'],
      [{ view: 'backups', channel: 'chn_1' }, 'Backups · demo · wallet-admin'],
      [{ view: 'folders', channel: 'demo' }, 'Folders · demo · wallet-admin'],
      [{ view: 'files', channel: 'chn_1', folder: 'welcome' }, 'welcome · demo · wallet-admin'],
      [{ view: 'file', channel: 'chn_1', folder: 'welcome', filename: 'prices.csv' }, 'prices.csv · welcome · demo · wallet-admin'],
      [{ view: 'deleted', channel: 'chn_1', folder: 'welcome' }, 'Deleted files · welcome · demo · wallet-admin'],
      [
        { view: 'changes', channel: 'chn_1', from: '20261126_102326', to: undefined, folder: 'welcome' },
        'Changes since backup 20261126_102326 · welcome · demo · wallet-admin',
      ],
      [{ view: 'audit', channel: 'chn_1', filters: { action: 'restore' } }, 'Audit log · demo · wallet-admin'],
      [{ view: 'admins' }, 'Admins · wallet-admin'],
      [{ view: 'channel-settings' }, 'Channel settings · wallet-admin'],
      [{ view: 'tenant-audit', filters: {} }, 'Tenant log · wallet-admin'],
      [{ view: 'proposals', status: 'any' }, 'Proposals · wallet-admin'],
      [{ view: 'proposals', id: 'prp_1' }, 'Proposal prp_1 · wallet-admin'],
    ];
    for (const [view, title] of titles) assert.equal(titleOf(view, channelName), title);
  });

  test("a fragment naming an element of the page (the skip link's #main) is no route; a view's fragment is", () => {
    const page = { getElementById: (id: string) => (id === 'main' ? ({} as HTMLElement) : null) };
    assert.equal(isRouteFragment('#main', page), false);
    for (const hash of ['', '#', '#/', '#/channels/main/backups', '#/admins']) assert.equal(isRouteFragment(hash, page), true, hash);
  });
});
