import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from 'viem';
import { assertProblem } from '../helpers/assertions.ts';
import { authTest, contractSignIn, DOMAIN, deployWallet, registerAdmin, rpcCallsDuring } from '../helpers/contract-wallets.ts';
import type { HttpResponse } from '../helpers/http.ts';
import { compileContracts, type LocalChain, startLocalChain } from '../helpers/local-chain.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { authHeaders, newWallet, type TestWallet } from '../helpers/wallets.ts';

// Two real Anvil nodes, chains 31337 and 8453, each behind its counting pass-through. The same
// deployer deploys one OwnerWallet first on each, so the wallet has the same address on both
// chains but a different owner: a message checked on the wrong chain's node would be judged by
// the wrong owner.

const HOME = 31337;
const OTHER = 8453;

describe('contract wallets are checked on the chain their message names, and only there', () => {
  let home: LocalChain;
  let other: LocalChain;
  let wallet: Address;
  /** Owns `wallet` on chain 31337. */
  let homeOwner: TestWallet;
  /** Owns the wallet at the same address on chain 8453. */
  let otherOwner: TestWallet;

  before(async () => {
    const compiled = await compileContracts();
    [home, other] = await Promise.all([startLocalChain({ chainId: HOME }), startLocalChain({ chainId: OTHER })]);
    homeOwner = newWallet();
    otherOwner = newWallet();
    wallet = await deployWallet(home, compiled.OwnerWallet!, homeOwner);
    const twin = await deployWallet(other, compiled.OwnerWallet!, otherOwner);
    assert.equal(twin, wallet, 'the same deployer and nonce give the same address on both chains');
  });
  after(async () => {
    await home?.stop();
    await other?.stop();
  });

  /** The response to `headers`, with the calls each node saw meanwhile. */
  async function signInWatched(svc: TestService, headers: Record<string, string>) {
    let response!: HttpResponse;
    let otherCalls: string[] = [];
    const homeCalls = await rpcCallsDuring(home, async () => {
      otherCalls = await rpcCallsDuring(other, async () => {
        response = await authTest(svc, headers);
      });
    });
    return { response, homeCalls, otherCalls };
  }

  describe(`AUTH_RPC_URL=${HOME}=…,${OTHER}=… (CHAIN=URL pairs)`, () => {
    let svc: TestService;

    before(async () => {
      svc = await startTestService('sqlite', {
        env: { AUTH_RPC_URL: `${HOME}=${home.rpcUrl},${OTHER}=${other.rpcUrl}`, AUTH_DOMAINS: DOMAIN, AUTH_PLAIN_MESSAGES: 'timestamped' },
      });
      await registerAdmin(svc, wallet, 'Contract wallet on two chains');
    });
    after(() => svc?.close());

    test("a message naming chain 31337 is checked on 31337's node (eth_getCode, then eth_call) and never on the other", async () => {
      const first = await signInWatched(svc, await contractSignIn(wallet, homeOwner, HOME));
      assert.equal(first.response.status, 200, first.response.body);
      assert.deepEqual(first.homeCalls, ['eth_getCode', 'eth_call'], 'the chain is known: eth_chainId is not asked');
      assert.deepEqual(first.otherCalls, []);
      // The wallet's code is remembered: a new message costs the one eth_call of the check.
      const second = await signInWatched(svc, await contractSignIn(wallet, homeOwner, HOME));
      assert.equal(second.response.status, 200, second.response.body);
      assert.deepEqual(second.homeCalls, ['eth_call']);
    });

    test('a message naming chain 8453 is judged by the wallet at that address on 8453: its owner signs in, the other is refused', async () => {
      const refused = await signInWatched(svc, await contractSignIn(wallet, homeOwner, OTHER));
      assertProblem(refused.response, 401, 'AUTH_SIGNATURE_INVALID');
      assert.deepEqual(refused.homeCalls, [], "31337's owner is not asked about on 31337's node");
      assert.deepEqual(refused.otherCalls, ['eth_getCode', 'eth_call']);

      const accepted = await signInWatched(svc, await contractSignIn(wallet, otherOwner, OTHER));
      assert.equal(accepted.response.status, 200, accepted.response.body);
      assert.deepEqual(accepted.homeCalls, []);
      assert.deepEqual(accepted.otherCalls, ['eth_call']);
    });

    test('a message naming a chain without an RPC is refused without asking any node, and says so', async () => {
      const { response, homeCalls, otherCalls } = await signInWatched(svc, await contractSignIn(wallet, homeOwner, 1));
      assertProblem(response, 401, 'AUTH_SIGNATURE_INVALID');
      assert.match(response.json().detail, /no RPC is configured for chain 1 /);
      assert.deepEqual([...homeCalls, ...otherCalls], []);
    });

    test('a plain message names no chain: it is checked as a key signature only, on no node', async () => {
      const plain = await authHeaders(homeOwner, `Sign in to wallet-admin at ${new Date().toISOString()}`, { raw: true });
      const { response, homeCalls, otherCalls } = await signInWatched(svc, {
        'X-WAL': wallet,
        'X-SIG': plain['X-SIG'],
        'X-MES': plain['X-MES'],
      });
      assertProblem(response, 401, 'AUTH_SIGNATURE_INVALID');
      assert.deepEqual([...homeCalls, ...otherCalls], []);
    });
  });

  test('AUTH_CHAIN_IDS refuses a message naming another chain (AUTH_CHAIN_NOT_ALLOWED) before any node is asked', async () => {
    const svc = await startTestService('sqlite', {
      env: { AUTH_RPC_URL: `${HOME}=${home.rpcUrl},${OTHER}=${other.rpcUrl}`, AUTH_CHAIN_IDS: String(HOME), AUTH_DOMAINS: DOMAIN },
    });
    try {
      await registerAdmin(svc, wallet, 'Contract wallet');
      const { response, homeCalls, otherCalls } = await signInWatched(svc, await contractSignIn(wallet, otherOwner, OTHER));
      assertProblem(response, 401, 'AUTH_CHAIN_NOT_ALLOWED');
      assert.equal(response.json().detail, `The message names chain ${OTHER}, which this service does not accept (accepted: ${HOME})`);
      assert.deepEqual([...homeCalls, ...otherCalls], []);
      assert.equal((await authTest(svc, await contractSignIn(wallet, homeOwner, HOME))).status, 200);
    } finally {
      await svc.close();
    }
  });

  test('credentials in AUTH_RPC_URL travel as Basic authorization, and no answer or log line shows them', async () => {
    const password = 'rpc-s3cr3t';
    const withCredentials = home.rpcUrl.replace('http://', `http://operator:${password}@`);
    const svc = await startTestService('sqlite', { env: { AUTH_RPC_URL: `${HOME}=${withCredentials}`, AUTH_DOMAINS: DOMAIN } });
    try {
      await registerAdmin(svc, wallet, 'Contract wallet');
      const before = home.rpcAuthorizations.length;
      assert.equal((await authTest(svc, await contractSignIn(wallet, homeOwner, HOME))).status, 200);
      const expected = `Basic ${Buffer.from(`operator:${password}`).toString('base64')}`;
      assert.deepEqual(home.rpcAuthorizations.slice(before), [expected, expected]);

      home.passThrough('fail');
      const failed = await authTest(svc, await contractSignIn(wallet, homeOwner, HOME));
      assertProblem(failed, 503, 'CONTRACT_WALLET_UNAVAILABLE');
      for (const text of [failed.body, ...svc.logs]) assert.ok(!text.includes(password), text);
      assert.ok(
        svc.logs.some((line) => line.includes('CONTRACT_WALLET_UNAVAILABLE')),
        'the failure was logged',
      );
    } finally {
      home.passThrough('forward');
      await svc.close();
    }
  });

  describe('a bare AUTH_RPC_URL (no chain named)', () => {
    test('the node is asked its chain once, at the first contract-wallet check; messages naming another chain are not checked on it', async () => {
      const svc = await startTestService('sqlite', { env: { AUTH_RPC_URL: home.rpcUrl, AUTH_DOMAINS: DOMAIN } });
      try {
        await registerAdmin(svc, wallet, 'Contract wallet');
        const eoa = newWallet();
        await registerAdmin(svc, eoa.address, 'Plain wallet');
        const plainSignIn = await signInWatched(svc, await contractSignIn(eoa.address, eoa, HOME));
        assert.equal(plainSignIn.response.status, 200, plainSignIn.response.body);
        assert.deepEqual(plainSignIn.homeCalls, [], 'a key signature asks nothing, not even the chain');

        const first = await signInWatched(svc, await contractSignIn(wallet, homeOwner, HOME));
        assert.equal(first.response.status, 200, first.response.body);
        assert.deepEqual(first.homeCalls, ['eth_chainId', 'eth_getCode', 'eth_call']);
        const second = await signInWatched(svc, await contractSignIn(wallet, homeOwner, HOME));
        assert.deepEqual(second.homeCalls, ['eth_call'], 'the chain is asked once');

        const elsewhere = await signInWatched(svc, await contractSignIn(wallet, otherOwner, OTHER));
        assertProblem(elsewhere.response, 401, 'AUTH_SIGNATURE_INVALID');
        assert.match(elsewhere.response.json().detail, new RegExp(`no RPC is configured for chain ${OTHER} `));
        assert.deepEqual([...elsewhere.homeCalls, ...elsewhere.otherCalls], []);
      } finally {
        await svc.close();
      }
    });

    test('when the node cannot say its chain the check is 503 CONTRACT_WALLET_UNAVAILABLE, and the chain is asked again next time', async () => {
      const svc = await startTestService('sqlite', { env: { AUTH_RPC_URL: home.rpcUrl, AUTH_DOMAINS: DOMAIN } });
      try {
        await registerAdmin(svc, wallet, 'Contract wallet');
        home.passThrough('fail');
        const failed = await signInWatched(svc, await contractSignIn(wallet, homeOwner, HOME));
        assertProblem(failed.response, 503, 'CONTRACT_WALLET_UNAVAILABLE');
        assert.match(failed.response.json().detail, /HTTP 502/);
        assert.deepEqual(failed.homeCalls, ['eth_chainId']);

        home.passThrough('forward');
        const retried = await signInWatched(svc, await contractSignIn(wallet, homeOwner, HOME));
        assert.equal(retried.response.status, 200, retried.response.body);
        assert.deepEqual(retried.homeCalls, ['eth_chainId', 'eth_getCode', 'eth_call']);
      } finally {
        home.passThrough('forward');
        await svc.close();
      }
    });
  });
});
