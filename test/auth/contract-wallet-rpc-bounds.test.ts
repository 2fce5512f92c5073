import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Address, type Hex, serializeErc6492Signature } from 'viem';
import { CHAIN_CHECKS_PER_CLIENT } from '../../src/auth/limits/chain-check-allowance.ts';
import { WINDOW_MS } from '../../src/auth/limits/failure-limiter.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { authTest, contractSignIn, DOMAIN, deployWallet, freshNonce, registerAdmin, rpcCallsDuring } from '../helpers/contract-wallets.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { type CompiledContract, compileContracts, type LocalChain, startLocalChain } from '../helpers/local-chain.ts';
import { sample } from '../helpers/metrics-text.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { base64Header, newWallet, siweMessage, type TestWallet } from '../helpers/wallets.ts';

// What a contract-wallet check may cost the RPC node, counted at the node's pass-through on a
// real Anvil node: bad signatures flooding in, a node that stalls, a node that fails.

const CHAIN = 31337;
const FLOOD = 200;

/** Sign-in headers claiming `wallet`, signed by another key: well-formed 65-byte signatures that recover elsewhere. */
async function wrongKeySignIns(wallets: () => Address, count: number): Promise<Record<string, string>[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const address = wallets();
      const message = siweMessage({ address }, DOMAIN, { chainId: CHAIN, nonce: freshNonce() });
      const signature = await newWallet().account.signMessage({ message });
      return { 'X-WAL': address, 'X-SIG': signature, 'X-MES': base64Header(message) };
    }),
  );
}

/**
 * Bad EIP-6492-wrapped signatures for `wallet`: each a different wallet factory, deployment call and
 * inner signature, as an attacker makes them, so that no cache (eth_getCode's, refusals') can answer.
 */
async function wrappedBadSignIns(wallet: Address, count: number): Promise<Record<string, string>[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const message = siweMessage({ address: wallet }, DOMAIN, { chainId: CHAIN, nonce: freshNonce() });
      const inner = await newWallet().account.signMessage({ message });
      const signature = serializeErc6492Signature({
        address: newWallet().address,
        data: `0x${randomBytes(36).toString('hex')}` as Hex,
        signature: inner,
      });
      return { 'X-WAL': wallet, 'X-SIG': signature, 'X-MES': base64Header(message) };
    }),
  );
}

/** Sends every request at once; the responses in order. */
function allAtOnce(svc: TestService, requests: Record<string, string>[]): Promise<HttpResponse[]> {
  return Promise.all(requests.map((headers) => authTest(svc, headers)));
}

async function scrape(svc: TestService): Promise<string> {
  const response = await request(svc.baseUrl, '/metrics');
  assert.equal(response.status, 200);
  return response.body;
}

describe('RPC calls of contract-wallet checks are bounded', () => {
  let chain: LocalChain;
  let walletContract: CompiledContract;

  before(async () => {
    walletContract = (await compileContracts()).OwnerWallet!;
    chain = await startLocalChain();
  });
  after(() => chain?.stop());

  test(`${FLOOD} bad signatures for an admin's EOA cost at most a handful of RPC calls; for unknown wallets none`, async (t) => {
    const svc = await startTestService('sqlite', {
      // The failure limit would turn most of the flood away before any check; here every one is checked.
      env: { AUTH_RPC_URL: `${CHAIN}=${chain.rpcUrl}`, AUTH_DOMAINS: DOMAIN, AUTH_FAIL_LIMIT: '1000000' },
    });
    try {
      const admin = newWallet();
      await registerAdmin(svc, admin.address, 'Plain wallet');
      const forAdmin = await wrongKeySignIns(() => admin.address, FLOOD);
      const forUnknown = await wrongKeySignIns(() => newWallet().address, FLOOD);

      let adminAnswers: HttpResponse[] = [];
      const adminCalls = await rpcCallsDuring(chain, async () => {
        adminAnswers = await allAtOnce(svc, forAdmin);
      });
      let unknownAnswers: HttpResponse[] = [];
      const unknownCalls = await rpcCallsDuring(chain, async () => {
        unknownAnswers = await allAtOnce(svc, forUnknown);
      });
      t.diagnostic(`${FLOOD} bad signatures for an admin's EOA: ${adminCalls.length} RPC call(s) (${adminCalls.join(', ')})`);
      t.diagnostic(`${FLOOD} bad signatures for unknown wallets: ${unknownCalls.length} RPC call(s)`);

      for (const response of [...adminAnswers, ...unknownAnswers]) assertProblem(response, 401, 'AUTH_SIGNATURE_INVALID');
      const details = new Set([...adminAnswers, ...unknownAnswers].map((response) => response.json().detail));
      assert.equal(details.size, 1, 'the answers do not tell an admin wallet from another');
      assert.ok(adminCalls.length <= 3, `at most a handful of calls: ${adminCalls.join(', ')}`);
      assert.deepEqual(adminCalls, ['eth_getCode'], 'one look at the address shows it holds no code');
      assert.deepEqual(unknownCalls, []);

      const metrics = await scrape(svc);
      assert.equal(sample(metrics, 'wallet_admin_rpc_calls_total', { chain: String(CHAIN), method: 'eth_getCode', result: 'ok' }), 1);
      assert.equal(sample(metrics, 'wallet_admin_rpc_calls_total', { method: 'eth_call' }), undefined);
      assert.equal(sample(metrics, 'wallet_admin_rpc_code_cache_misses_total'), 1);
      assert.equal(sample(metrics, 'wallet_admin_rpc_code_cache_hits_total'), FLOOD - 1);
      assert.equal(sample(metrics, 'wallet_admin_rpc_call_duration_seconds_count', { chain: String(CHAIN), method: 'eth_getCode' }), 1);
    } finally {
      await svc.close();
    }
  });

  for (const engine of ENGINES) {
    test(`a flood of bad signatures for a contract wallet, wrapped (EIP-6492) or not, costs at most AUTH_FAIL_LIMIT calls and a handful (${engine})`, async (t) => {
      const limit = 10;
      const svc = await startTestService(engine, {
        env: { AUTH_RPC_URL: `${CHAIN}=${chain.rpcUrl}`, AUTH_DOMAINS: DOMAIN, AUTH_FAIL_LIMIT: String(limit) },
      });
      try {
        const owner = newWallet();
        const wallet = await deployWallet(chain, walletContract, owner);
        await registerAdmin(svc, wallet, 'Contract wallet');
        const wrapped = await wrappedBadSignIns(wallet, FLOOD);
        const plain = await wrongKeySignIns(() => wallet, FLOOD);
        // Interleaved, in waves of 25 at once: each wave both crowds the client's places and adds to its failures.
        const flood = wrapped.flatMap((headers, i) => [headers, plain[i]!]);
        const answers: HttpResponse[] = [];
        const firstWindow = Math.floor(Date.now() / WINDOW_MS);
        const calls = await rpcCallsDuring(chain, async () => {
          for (let i = 0; i < flood.length; i += 25) answers.push(...(await allAtOnce(svc, flood.slice(i, i + 25))));
        });
        // The failure limit counts per minute: a flood that crosses a minute gets a fresh count.
        const windows = Math.floor(Date.now() / WINDOW_MS) - firstWindow + 1;
        const ethCalls = calls.filter((method) => method === 'eth_call').length;
        const codes = answers.map((response) => `${response.status} ${response.json().code}`);
        const counted = (code: string) => codes.filter((c) => c === code).length;
        t.diagnostic(
          `${flood.length} bad signatures for a contract wallet (AUTH_FAIL_LIMIT=${limit}): ${ethCalls} eth_call(s), ` +
            `${counted('401 AUTH_SIGNATURE_INVALID')} × 401, ${counted('429 RATE_LIMITED')} × 429, over ${windows} minute(s)`,
        );
        assert.deepEqual(new Set(codes), new Set(['401 AUTH_SIGNATURE_INVALID', '429 RATE_LIMITED']), 'refused, or turned away');
        assert.ok(ethCalls >= 1, 'the wallet was asked');
        assert.ok(
          ethCalls <= windows * limit + CHAIN_CHECKS_PER_CLIENT,
          `${ethCalls} eth_calls for a limit of ${limit} a minute (${windows} minute(s)): ${calls.join(', ')}`,
        );
        assert.ok(calls.filter((method) => method === 'eth_getCode').length <= 1, 'its code is looked up once');

        // The same bad credential again and again: one call, then the refusal is remembered.
        const another = await startTestService(engine, {
          env: { AUTH_RPC_URL: `${CHAIN}=${chain.rpcUrl}`, AUTH_DOMAINS: DOMAIN, AUTH_FAIL_LIMIT: '1000000' },
        });
        try {
          await registerAdmin(another, wallet, 'Contract wallet');
          const [repeated] = await wrappedBadSignIns(wallet, 1);
          const [repeatedPlain] = await wrongKeySignIns(() => wallet, 1);
          const again = await rpcCallsDuring(chain, async () => {
            for (let i = 0; i < 20; i++) {
              for (const headers of [repeated!, repeatedPlain!])
                assertProblem(await authTest(another, headers), 401, 'AUTH_SIGNATURE_INVALID');
            }
          });
          assert.deepEqual(
            again.filter((method) => method === 'eth_call'),
            ['eth_call', 'eth_call'],
            'one call per bad credential, however often it is sent',
          );
        } finally {
          await another.close();
        }
      } finally {
        await svc.close();
      }
    });
  }

  test('one client flooding bad wrapped signatures takes no more than its places: another client’s contract wallet signs in', async () => {
    const svc = await startTestService('sqlite', {
      env: {
        AUTH_RPC_URL: `${CHAIN}=${chain.rpcUrl}`,
        AUTH_DOMAINS: DOMAIN,
        // One call in flight and four waiting for the whole service: without a bound per client, the flood would hold them all.
        AUTH_RPC_CONCURRENCY: '1',
        AUTH_FAIL_LIMIT: '1000000',
        TRUST_PROXY: '127.0.0.1',
      },
    });
    try {
      const owner = newWallet();
      const wallet = await deployWallet(chain, walletContract, owner);
      await registerAdmin(svc, wallet, 'Contract wallet');
      const flood = (await wrappedBadSignIns(wallet, 100)).map((headers) => ({ ...headers, 'X-Forwarded-For': '203.0.113.7' }));
      const honest = { ...(await contractSignIn(wallet, owner)), 'X-Forwarded-For': '198.51.100.9' };
      const answers = await allAtOnce(svc, [...flood, honest]);
      const mine = answers.at(-1)!;
      assert.equal(mine.status, 200, mine.body);
      const theirs = new Set(answers.slice(0, -1).map((response) => `${response.status} ${response.json().code}`));
      assert.deepEqual(theirs, new Set(['401 AUTH_SIGNATURE_INVALID', '429 RATE_LIMITED']));
      const turnedAway = answers.slice(0, -1).find((response) => response.status === 429)!;
      assert.match(turnedAway.json().detail, /contract-wallet checks under way from this address/);
      assert.equal(turnedAway.headers['retry-after'], '1');
    } finally {
      await svc.close();
    }
  });

  describe('a contract wallet on a node that misbehaves', () => {
    let svc: TestService;
    let owner: TestWallet;
    let wallet: Address;

    before(async () => {
      svc = await startTestService('sqlite', {
        env: {
          AUTH_RPC_URL: `${CHAIN}=${chain.rpcUrl}`,
          AUTH_RPC_TIMEOUT: '2',
          AUTH_RPC_CONCURRENCY: '2',
          AUTH_DOMAINS: DOMAIN,
          AUTH_FAIL_LIMIT: '1000000',
          // The burst below comes from many clients, as only many can fill the service's RPC bound.
          TRUST_PROXY: '127.0.0.1',
        },
      });
      owner = newWallet();
      wallet = await deployWallet(chain, walletContract, owner);
      await registerAdmin(svc, wallet, 'Contract wallet');
      // Signed in once while the node is well: its code is known from then on.
      assert.equal((await authTest(svc, await contractSignIn(wallet, owner))).status, 200);
    });
    after(async () => {
      chain.passThrough('forward');
      await svc?.close();
    });

    test('a stalled node: the checks beyond the bound are refused at once, the rest time out; all 503, and the node sees no pile', async (t) => {
      const burst = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => ({ ...(await contractSignIn(wallet, owner)), 'X-Forwarded-For': `10.1.0.${i + 1}` })),
      );
      const before = await scrape(svc);
      chain.passThrough('stall');
      let answers: HttpResponse[] = [];
      const calls = await rpcCallsDuring(chain, async () => {
        answers = await allAtOnce(svc, burst);
      });
      chain.passThrough('forward');
      t.diagnostic(
        `${burst.length} checks from ${burst.length} clients on a stalled node (2 in flight, 8 waiting): ${calls.length} reached the node`,
      );
      for (const response of answers) assertProblem(response, 503, 'CONTRACT_WALLET_UNAVAILABLE');
      // Two in flight and eight waiting at most, each within its deadline: never one call per check.
      assert.ok(calls.length <= 2 + 8, `${calls.length} calls reached the node`);
      const after = await scrape(svc);
      const grew = (result: string) =>
        (sample(after, 'wallet_admin_rpc_calls_total', { method: 'eth_call', result }) ?? 0) -
        (sample(before, 'wallet_admin_rpc_calls_total', { method: 'eth_call', result }) ?? 0);
      assert.ok(grew('rejected-busy') >= 1, 'some were refused without waiting');
      assert.ok(grew('timeout') >= 2, 'the ones in flight timed out');
      assert.equal(grew('rejected-busy') + grew('timeout'), burst.length, 'every check is counted once');
      assert.equal(grew('ok'), 0);

      // The bound holds nothing once the node answers again.
      assert.equal((await authTest(svc, await contractSignIn(wallet, owner))).status, 200);
    });

    test('a failing node: 503 CONTRACT_WALLET_UNAVAILABLE, counted as an error with its latency', async () => {
      const before = await scrape(svc);
      chain.passThrough('fail');
      try {
        const response = await authTest(svc, await contractSignIn(wallet, owner));
        assertProblem(response, 503, 'CONTRACT_WALLET_UNAVAILABLE');
        assert.equal(
          response.json().detail,
          `The contract-wallet check got no answer from the RPC of chain ${CHAIN} (HTTP 502); try again`,
        );
      } finally {
        chain.passThrough('forward');
      }
      const after = await scrape(svc);
      const grew = (name: string, labels: Record<string, string>) =>
        (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
      const call = { chain: String(CHAIN), method: 'eth_call' };
      assert.equal(grew('wallet_admin_rpc_calls_total', { ...call, result: 'error' }), 1);
      assert.equal(grew('wallet_admin_rpc_call_duration_seconds_count', call), 1);
      assert.equal(grew('wallet_admin_errors_total', { code: 'CONTRACT_WALLET_UNAVAILABLE' }), 1);
    });
  });
});
