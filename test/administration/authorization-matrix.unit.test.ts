import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Admin } from '../../src/model/admins.ts';
import { ALL_PERMISSIONS, type Permission } from '../../src/model/permissions.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { noteCredential } from '../helpers/log-secrets.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn, type TestWallet } from '../helpers/wallets.ts';

/**
 * Every administration route × every kind of caller, from the one table below: no headers, a
 * suspended admin, a removed one, another tenant's owner, a sub-admin without the route's
 * permission and one with it, the owner. Each cell acts on state of its own: an admin made below
 * the caller (the owner's, for callers of no admin in the tenant), and a refused cell leaves that
 * admin exactly as it was. POST /api/invitations/{token}/accept is the newcomer's, not an admin's:
 * its refusals are in self-service.unit.test.ts.
 */
type Caller =
  | 'no headers'
  | 'suspended'
  | 'removed'
  | "another tenant's owner"
  | 'without the permission'
  | 'with the permission'
  | 'owner';
const CALLERS: Caller[] = [
  'no headers',
  'suspended',
  'removed',
  "another tenant's owner",
  'without the permission',
  'with the permission',
  'owner',
];

interface Cell {
  baseUrl: string;
  headers: Record<string, string>;
  /** An admin below the caller, made for this cell; it made `invitationId`. */
  child: Admin;
  childWallet: TestWallet;
  invitationId: string;
  channelRef: string;
  tag: string;
}

interface Route {
  name: string;
  permission?: Permission;
  /** Names a resource of the home tenant: another tenant's owner gets 404 with this code. */
  foreign?: string;
  ok: number;
  send(cell: Cell): Promise<HttpResponse>;
}

const json = (cell: Cell, method: string, path: string, body?: unknown) =>
  request(cell.baseUrl, path, {
    method,
    headers: body === undefined ? cell.headers : { ...cell.headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const ROUTES: Route[] = [
  { name: 'GET /api/admins', permission: 'admins:read', ok: 200, send: (c) => json(c, 'GET', '/api/admins') },
  {
    name: 'POST /api/admins',
    permission: 'admins:manage',
    ok: 201,
    send: (c) => json(c, 'POST', '/api/admins', { displayName: 'New', wallet: newWallet().address, permissions: [] }),
  },
  {
    name: 'GET /api/admins/{id}',
    permission: 'admins:read',
    foreign: 'ADMIN_NOT_FOUND',
    ok: 200,
    send: (c) => json(c, 'GET', `/api/admins/${c.child.id}`),
  },
  {
    name: 'PATCH /api/admins/{id}',
    permission: 'admins:manage',
    foreign: 'ADMIN_NOT_FOUND',
    ok: 200,
    send: (c) => json(c, 'PATCH', `/api/admins/${c.child.id}`, { status: 'SUSPENDED' }),
  },
  {
    name: 'DELETE /api/admins/{id}',
    permission: 'admins:manage',
    foreign: 'ADMIN_NOT_FOUND',
    ok: 204,
    send: (c) => json(c, 'DELETE', `/api/admins/${c.child.id}`),
  },
  {
    name: 'GET /api/admins/{id}/wallets',
    permission: 'admins:read',
    foreign: 'ADMIN_NOT_FOUND',
    ok: 200,
    send: (c) => json(c, 'GET', `/api/admins/${c.child.id}/wallets`),
  },
  {
    name: 'DELETE /api/admins/{id}/wallets/{address}',
    permission: 'admins:manage',
    foreign: 'ADMIN_NOT_FOUND',
    ok: 204,
    send: (c) => json(c, 'DELETE', `/api/admins/${c.child.id}/wallets/${c.child.wallets[1]}`),
  },
  {
    name: 'POST /api/invitations',
    permission: 'admins:manage',
    ok: 201,
    send: (c) => json(c, 'POST', '/api/invitations', { permissions: [], expiresIn: 600 }),
  },
  { name: 'GET /api/invitations', permission: 'admins:manage', ok: 200, send: (c) => json(c, 'GET', '/api/invitations') },
  {
    name: 'DELETE /api/invitations/{id}',
    permission: 'admins:manage',
    foreign: 'INVITATION_NOT_FOUND',
    ok: 204,
    send: (c) => json(c, 'DELETE', `/api/invitations/${c.invitationId}`),
  },
  {
    name: 'POST /api/channels',
    permission: 'channels:manage',
    ok: 201,
    send: (c) => json(c, 'POST', '/api/channels', { name: `made-${c.tag}` }),
  },
  {
    name: 'PATCH /api/channels/{ref}',
    permission: 'channels:manage',
    foreign: 'CHANNEL_NOT_FOUND',
    ok: 200,
    send: (c) => json(c, 'PATCH', `/api/channels/${c.channelRef}`, { archived: false }),
  },
  {
    name: 'GET /api/channels/{ref}/admins',
    permission: 'admins:read',
    foreign: 'CHANNEL_NOT_FOUND',
    ok: 200,
    send: (c) => json(c, 'GET', `/api/channels/${c.channelRef}/admins`),
  },
  {
    name: 'PUT /api/channels/{ref}/admins/{id}',
    permission: 'admins:manage',
    foreign: 'CHANNEL_NOT_FOUND',
    ok: 204,
    send: (c) => json(c, 'PUT', `/api/channels/${c.channelRef}/admins/${c.child.id}`),
  },
  {
    name: 'DELETE /api/channels/{ref}/admins/{id}',
    permission: 'admins:manage',
    foreign: 'CHANNEL_NOT_FOUND',
    ok: 204,
    send: (c) => json(c, 'DELETE', `/api/channels/${c.channelRef}/admins/${c.child.id}`),
  },
  { name: 'GET /api/audit', permission: 'audit:read', ok: 200, send: (c) => json(c, 'GET', '/api/audit') },
];

function expected(route: Route, caller: Caller): { status: number; code?: string } {
  switch (caller) {
    case 'no headers':
      return { status: 401, code: 'AUTH_HEADERS_MISSING' };
    case 'suspended':
      return { status: 403, code: 'ADMIN_SUSPENDED' };
    case 'removed':
      return { status: 401, code: 'AUTH_UNKNOWN_WALLET' };
    case "another tenant's owner":
      return route.foreign ? { status: 404, code: route.foreign } : { status: route.ok };
    case 'without the permission':
      return route.permission ? { status: 403, code: 'PERMISSION_DENIED' } : { status: route.ok };
    default:
      return { status: route.ok };
  }
}

for (const engine of ENGINES) {
  describe(`administration authorization matrix (${engine})`, () => {
    let svc: TestService;
    let home: TenantFixture;
    let other: TenantFixture;
    let domain: string;
    let cells = 0;

    before(async () => {
      svc = await startTestService(engine);
      domain = svc.config.auth.domains[0]!;
      home = await createTenantFixture(svc.service.store, 'Home');
      other = await createTenantFixture(svc.service.store, 'Other');
    });
    after(() => svc.close());

    /** The admin playing `caller` for `route` (a fresh one per cell), or none. */
    async function callerFor(route: Route, caller: Caller): Promise<{ admin: Admin | undefined; wallet: TestWallet | undefined }> {
      const store = svc.service.store;
      const sub = async (permissions: readonly string[]) => {
        const wallet = newWallet();
        const admin = await store.createAdmin({
          tenantId: home.tenant.id,
          wallet: wallet.address,
          displayName: caller,
          ownerAdminId: home.owner.id,
          permissions: [...permissions],
        });
        await store.linkChannel(home.channel.id, admin.id);
        return { admin: (await store.getAdmin(admin.id))!, wallet };
      };
      switch (caller) {
        case 'no headers':
          return { admin: undefined, wallet: undefined };
        case "another tenant's owner":
          return { admin: undefined, wallet: other.ownerWallet };
        case 'owner':
          return { admin: home.owner, wallet: home.ownerWallet };
        case 'suspended': {
          const made = await sub(ALL_PERMISSIONS);
          await store.setAdminStatus(made.admin.id, 'SUSPENDED');
          return { admin: undefined, wallet: made.wallet };
        }
        case 'removed': {
          const made = await sub(ALL_PERMISSIONS);
          await store.removeAdmin(made.admin.id, home.owner.id);
          return { admin: undefined, wallet: made.wallet };
        }
        case 'without the permission':
          return sub(ALL_PERMISSIONS.filter((p) => p !== route.permission));
        case 'with the permission':
          return sub(route.permission ? [route.permission] : []);
      }
    }

    for (const route of ROUTES) {
      test(route.name, async () => {
        for (const caller of CALLERS) {
          const store = svc.service.store;
          const { admin, wallet } = await callerFor(route, caller);
          const parent = admin ?? home.owner;
          // The admin this cell acts on: below the caller, holding a second wallet and admins:manage
          // only when the caller holds it (a sub-admin manages no one holding more than itself).
          const childWallet = newWallet();
          const child = await store.createAdmin({
            tenantId: home.tenant.id,
            wallet: childWallet.address,
            displayName: 'Child',
            ownerAdminId: parent.id,
            permissions: route.permission === 'admins:manage' && caller !== 'without the permission' ? ['admins:manage'] : [],
          });
          await store.addAdminWallet(child.id, newWallet().address);
          const token = `wai_matrix_${Math.random().toString(36).slice(2)}`;
          noteCredential(token);
          const invitation = await store.createInvitation({
            tenantId: home.tenant.id,
            inviterAdminId: child.id,
            displayName: null,
            wallet: null,
            permissions: [],
            channelIds: [],
            createdAt: Date.now(),
            expiresAt: Date.now() + 600_000,
            tokenHash: token,
          });
          const cell: Cell = {
            baseUrl: svc.baseUrl,
            headers: wallet === undefined ? {} : { ...(await signIn(wallet, domain)) },
            child: (await store.getAdmin(child.id))!,
            childWallet,
            invitationId: invitation.id,
            channelRef: home.channel.id,
            tag: `${engine}-${cells}`,
          };
          const want = expected(route, caller);
          const response = await route.send(cell);
          cells++;
          const where = `${route.name} as ${caller}`;
          if (want.code) {
            assertProblem(response, want.status, want.code);
            assert.deepEqual(await store.getAdmin(child.id), cell.child, `${where}: the refusal changed nothing`);
            assert.equal((await store.getInvitation(invitation.id))!.revokedAt, null, `${where}: the invitation is as it was`);
          } else {
            assert.equal(response.status, want.status, `${where}: ${response.body}`);
          }
        }
      });
    }

    test('every cell was run', () => {
      assert.equal(cells, ROUTES.length * CALLERS.length);
    });
  });
}
