import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Channel } from '../../src/model/channels.ts';
import { ALL_PERMISSIONS, type Permission } from '../../src/model/permissions.ts';
import { assertContractHeaders, assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn, type TestWallet } from '../helpers/wallets.ts';

/**
 * OWASP API1/API5: every endpoint × every kind of caller, from the one table below. A cell is
 * the expected status and, for refusals, the error code. Each request signs a fresh message, so
 * a logout in one cell never affects another.
 */
type Caller =
  | 'no auth'
  | 'bad signature'
  | 'unknown wallet'
  | 'suspended admin'
  | "another tenant's owner"
  | 'admin not linked to the channel'
  | 'linked admin without the permission'
  | 'linked admin with it'
  | 'owner';
const CALLERS: Caller[] = [
  'no auth',
  'bad signature',
  'unknown wallet',
  'suspended admin',
  "another tenant's owner",
  'admin not linked to the channel',
  'linked admin without the permission',
  'linked admin with it',
  'owner',
];

interface Endpoint {
  name: string;
  /** The permission the endpoint needs on the channel; undefined = any signed-in admin. */
  permission?: Permission;
  /** Channel endpoints answer 404 to callers who may not see the channel. */
  channelScoped: boolean;
  ok: number;
  /** Sends the request as `client` (whose auth may be empty or forged) against cell-private state. */
  send(client: FilesClient, cell: string, ctx: Context, allowed: boolean): Promise<HttpResponse>;
}

interface Context {
  backupTimestamp: string;
}

const ENDPOINTS: Endpoint[] = [
  { name: 'GET /api/auth/test', channelScoped: false, ok: 200, send: (c) => request(c.baseUrl, '/api/auth/test', { headers: c.auth }) },
  {
    name: 'POST /api/auth/logout',
    channelScoped: false,
    ok: 204,
    send: (c) => request(c.baseUrl, '/api/auth/logout', { method: 'POST', headers: c.auth }),
  },
  { name: 'PUT file', permission: 'files:write', channelScoped: true, ok: 200, send: (c, cell) => c.put('docs', cell, 'new bytes') },
  { name: 'GET file', permission: 'files:read', channelScoped: true, ok: 200, send: (c, cell) => c.get('docs', cell) },
  { name: 'DELETE file', permission: 'files:write', channelScoped: true, ok: 204, send: (c, cell) => c.delete('docs', cell) },
  {
    name: 'GET /api/channels',
    channelScoped: false,
    ok: 200,
    send: (c) => request(c.baseUrl, '/api/channels', { headers: c.auth }),
  },
  {
    name: 'GET folders of the channel',
    permission: 'files:read',
    channelScoped: true,
    ok: 200,
    send: (c) => request(c.baseUrl, `/api/channels/${c.channelRef}/folders`, { headers: c.auth }),
  },
  { name: 'GET folder listing', permission: 'files:read', channelScoped: true, ok: 200, send: (c) => c.list('docs') },
  { name: 'GET file versions', permission: 'files:read', channelScoped: true, ok: 200, send: (c, cell) => c.versions('docs', cell) },
  {
    name: 'POST restore',
    permission: 'files:restore',
    channelScoped: true,
    ok: 200,
    send: (c, cell, ctx) => c.restore('docs', cell, `?backupTimestamp=${ctx.backupTimestamp}`),
  },
  {
    name: 'POST backups',
    permission: 'backups:create',
    channelScoped: true,
    ok: 201,
    send: async (c, _cell, _ctx, allowed) => {
      // Backups are named by their second: each one that is to succeed gets a second of its own.
      if (allowed) await nextSecond();
      return c.backup();
    },
  },
  { name: 'GET backups', permission: 'files:read', channelScoped: true, ok: 200, send: (c) => c.backups() },
  { name: 'GET audit', permission: 'audit:read', channelScoped: true, ok: 200, send: (c) => c.audit() },
];

/** The table: what each caller gets from each endpoint. */
function expected(endpoint: Endpoint, caller: Caller): { status: number; code?: string } {
  switch (caller) {
    case 'no auth':
      return { status: 401, code: 'AUTH_HEADERS_MISSING' };
    case 'bad signature':
      return { status: 401, code: 'AUTH_SIGNATURE_INVALID' };
    case 'unknown wallet':
      return { status: 401, code: 'AUTH_UNKNOWN_WALLET' };
    case 'suspended admin':
      return { status: 403, code: 'ADMIN_SUSPENDED' };
    case "another tenant's owner":
    case 'admin not linked to the channel':
      return endpoint.channelScoped ? { status: 404, code: 'CHANNEL_NOT_FOUND' } : { status: endpoint.ok };
    case 'linked admin without the permission':
      return endpoint.permission ? { status: 403, code: 'PERMISSION_DENIED' } : { status: endpoint.ok };
    case 'linked admin with it':
    case 'owner':
      return { status: endpoint.ok };
  }
}

for (const engine of ENGINES) {
  describe(`authorization matrix (${engine})`, () => {
    let svc: TestService;
    let home: TenantFixture;
    let domain: string;
    const wallets = new Map<string, TestWallet | undefined>();
    const ctx: Context = { backupTimestamp: '' };
    const counts = { cells: 0, refused: 0, allowed: 0 };

    /** The wallet that plays `caller` for `endpoint` (permissions differ per endpoint). */
    const walletKey = (caller: Caller, endpoint: Endpoint) =>
      caller === 'linked admin without the permission' || caller === 'linked admin with it'
        ? `${caller}|${endpoint.permission ?? '-'}`
        : caller;

    before(async () => {
      svc = await startTestService(engine);
      domain = svc.config.auth.domains[0]!;
      const store = svc.service.store;
      home = await createTenantFixture(store, 'Home');
      const other = await createTenantFixture(store, 'Other');
      const member = async (options: { permissions: readonly string[]; channels: Channel[] }) =>
        (await createMemberAdmin(store, home, { permissions: [...options.permissions], channels: options.channels })).wallet;

      wallets.set('no auth', undefined);
      wallets.set('bad signature', home.ownerWallet);
      wallets.set('unknown wallet', newWallet());
      const suspended = await createMemberAdmin(store, home, { permissions: [...ALL_PERMISSIONS], channels: [home.channel] });
      await store.setAdminStatus(suspended.admin.id, 'SUSPENDED');
      wallets.set('suspended admin', suspended.wallet);
      wallets.set("another tenant's owner", other.ownerWallet);
      wallets.set('admin not linked to the channel', await member({ permissions: ALL_PERMISSIONS, channels: [] }));
      wallets.set('owner', home.ownerWallet);
      for (const permission of [...ALL_PERMISSIONS, undefined]) {
        const key = permission ?? '-';
        wallets.set(
          `linked admin without the permission|${key}`,
          await member({ permissions: ALL_PERMISSIONS.filter((p) => p !== permission), channels: [home.channel] }),
        );
        wallets.set(`linked admin with it|${key}`, await member({ permissions: permission ? [permission] : [], channels: [home.channel] }));
      }

      // Every cell gets a file of its own, present in one backup and then changed, so that the
      // allowed cells of GET, DELETE, versions and restore all have something to act on.
      const owner = new FilesClient(svc.baseUrl, home.channel.id, { ...(await signIn(home.ownerWallet, domain)) });
      for (const endpoint of ENDPOINTS)
        for (const caller of CALLERS)
          assert.ok([200, 201].includes((await owner.put('docs', cellName(endpoint, caller), 'backed-up bytes')).status));
      await nextSecond();
      const backup = await owner.backup();
      assert.equal(backup.status, 201, backup.body);
      ctx.backupTimestamp = backup.json().timestamp;
      for (const endpoint of ENDPOINTS) for (const caller of CALLERS) await owner.put('docs', cellName(endpoint, caller), 'changed bytes');
    });
    after(() => svc.close());

    for (const endpoint of ENDPOINTS) {
      test(endpoint.name, async () => {
        for (const caller of CALLERS) {
          const auth = await authFor(caller, wallets.get(walletKey(caller, endpoint)), domain);
          const want = expected(endpoint, caller);
          const response = await endpoint.send(
            new FilesClient(svc.baseUrl, home.channel.id, auth),
            cellName(endpoint, caller),
            ctx,
            want.code === undefined,
          );
          const where = `${endpoint.name} as ${caller}`;
          counts.cells++;
          if (want.code) {
            counts.refused++;
            assert.equal(response.status, want.status, `${where}: ${response.body}`);
            assertProblem(response, want.status, want.code);
          } else {
            counts.allowed++;
            assert.equal(response.status, want.status, `${where}: ${response.body}`);
            assertContractHeaders(response);
          }
        }
      });
    }

    test('refusals changed nothing: every refused cell still holds its bytes', async (t) => {
      const owner = new FilesClient(svc.baseUrl, home.channel.id, { ...(await signIn(home.ownerWallet, domain)) });
      for (const endpoint of ENDPOINTS.filter((e) => e.channelScoped)) {
        for (const caller of CALLERS.filter((c) => expected(endpoint, c).code)) {
          const got = await owner.get('docs', cellName(endpoint, caller));
          assert.equal(got.status, 200, `${endpoint.name} as ${caller}`);
          assert.equal(got.body, 'changed bytes', `${endpoint.name} as ${caller} changed the file`);
        }
      }
      assert.equal(counts.cells, ENDPOINTS.length * CALLERS.length);
      t.diagnostic(
        `${engine}: ${counts.cells} cells (${ENDPOINTS.length} endpoints × ${CALLERS.length} callers), ${counts.refused} refused as the table says, ${counts.allowed} allowed`,
      );
    });
  });
}

function cellName(endpoint: Endpoint, caller: Caller): string {
  return `${endpoint.name}--${caller}.txt`.replace(/[^A-Za-z0-9.-]+/g, '_');
}

/** The headers a caller sends: none, a forged signature, or a fresh valid sign-in. */
async function authFor(caller: Caller, wallet: TestWallet | undefined, domain: string): Promise<Record<string, string>> {
  if (caller === 'no auth' || wallet === undefined) return {};
  const nonce = randomBytes(8).toString('hex');
  const headers = { ...(await signIn(wallet, domain, { nonce })) };
  if (caller === 'bad signature') {
    // The owner's wallet and message, signed by someone else.
    const forger = { ...(await signIn(newWallet(), domain, { nonce })) };
    return { ...headers, 'X-SIG': forger['X-SIG'] };
  }
  return headers;
}
