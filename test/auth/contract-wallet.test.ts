import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Address, encodeDeployData, encodeFunctionData, getContractAddress, type Hex, serializeErc6492Signature } from 'viem';
import { assertProblem } from '../helpers/assertions.ts';
import { authTest, contractSignIn, DOMAIN, deployWallet, registerAdmin, rpcCallsDuring } from '../helpers/contract-wallets.ts';
import type { HttpResponse } from '../helpers/http.ts';
import { type CompiledContract, compileContracts, deploy, type LocalChain, startLocalChain } from '../helpers/local-chain.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn, type TestWallet } from '../helpers/wallets.ts';

// Contract wallets sign in on a real Anvil node running the contracts in test/fixtures/contracts;
// the service reaches it only through the node's counting pass-through, so every RPC call it
// makes is seen. AUTH_RPC_URL is a bare URL here, as before chains were named: the node is
// asked its chain (contract-wallet-chains.test.ts has the CHAIN=URL form).

interface Contracts {
  wallet: CompiledContract;
  factory: CompiledContract;
}

describe('contract-wallet sign-in on a local EVM node', () => {
  let chain: LocalChain;
  let contracts: Contracts;

  before(async () => {
    const compiled = await compileContracts();
    contracts = { wallet: compiled.OwnerWallet!, factory: compiled.OwnerWalletFactory! };
    chain = await startLocalChain();
  });
  after(() => chain?.stop());

  describe('with AUTH_RPC_URL', () => {
    let svc: TestService;
    let owner: TestWallet;
    let wallet: Address;
    let adminId: string;

    before(async () => {
      svc = await startTestService('sqlite', { env: { AUTH_RPC_URL: chain.rpcUrl, AUTH_DOMAINS: DOMAIN } });
      owner = newWallet();
      wallet = await deployWallet(chain, contracts.wallet, owner);
      adminId = await registerAdmin(svc, wallet, 'Contract wallet');
    });
    after(() => svc?.close());

    test('a message signed by the owner key signs in as the contract (EIP-1271)', async () => {
      const headers = await contractSignIn(wallet, owner);
      let response!: HttpResponse;
      const calls = await rpcCallsDuring(chain, async () => {
        response = await authTest(svc, headers);
      });
      assert.equal(response.status, 200, response.body);
      const body = response.json();
      assert.equal(body.walletAddress, wallet);
      assert.equal(body.principal.id, adminId);
      assert.ok(calls.includes('eth_call'), `the contract was asked: ${calls.join(', ')}`);
    });

    test('a message signed by another key is refused by the contract: 401 AUTH_SIGNATURE_INVALID', async () => {
      const headers = await contractSignIn(wallet, newWallet());
      let response!: HttpResponse;
      const calls = await rpcCallsDuring(chain, async () => {
        response = await authTest(svc, headers);
      });
      assertProblem(response, 401, 'AUTH_SIGNATURE_INVALID');
      assert.ok(calls.includes('eth_call'), `the contract was asked: ${calls.join(', ')}`);
    });

    test('an ordinary wallet (EOA) signs in without a single RPC call', async () => {
      const eoa = newWallet();
      await registerAdmin(svc, eoa.address, 'Plain wallet');
      const headers = await signIn(eoa, DOMAIN);
      let response!: HttpResponse;
      const calls = await rpcCallsDuring(chain, async () => {
        response = await authTest(svc, headers);
      });
      assert.equal(response.status, 200, response.body);
      assert.deepEqual(calls, []);
    });

    describe('a counterfactual wallet, not deployed yet (EIP-6492)', () => {
      let factory: Address;

      before(async () => {
        factory = await deploy(chain, contracts.factory, []);
      });

      /** The CREATE2 address the factory will give `walletOwner`'s wallet, and the call that deploys it. */
      function counterfactual(walletOwner: TestWallet): { address: Address; factoryData: Hex } {
        const salt = `0x${randomBytes(32).toString('hex')}` as Hex;
        const initCode = encodeDeployData({ abi: contracts.wallet.abi, bytecode: contracts.wallet.bytecode, args: [walletOwner.address] });
        return {
          address: getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecode: initCode }),
          factoryData: encodeFunctionData({ abi: contracts.factory.abi, functionName: 'deploy', args: [walletOwner.address, salt] }),
        };
      }

      async function wrappedSignIn(address: Address, factoryData: Hex, signer: TestWallet): Promise<Record<string, string>> {
        const headers = await contractSignIn(address, signer);
        const signature = serializeErc6492Signature({ address: factory, data: factoryData, signature: headers['X-SIG'] as Hex });
        return { ...headers, 'X-SIG': signature };
      }

      test('its owner-signed, 6492-wrapped message signs in, and nothing gets deployed', async () => {
        const walletOwner = newWallet();
        const { address, factoryData } = counterfactual(walletOwner);
        const counterfactualAdminId = await registerAdmin(svc, address, 'Counterfactual wallet');
        assert.equal(await chain.publicClient.getCode({ address }), undefined, 'not deployed before');

        const response = await authTest(svc, await wrappedSignIn(address, factoryData, walletOwner));
        assert.equal(response.status, 200, response.body);
        assert.equal(response.json().principal.id, counterfactualAdminId);
        // The check simulates the deployment in eth_call; the wallet stays counterfactual.
        assert.equal(await chain.publicClient.getCode({ address }), undefined, 'not deployed after');
      });

      test('signed by another key it is refused: 401 AUTH_SIGNATURE_INVALID', async () => {
        const walletOwner = newWallet();
        const { address, factoryData } = counterfactual(walletOwner);
        await registerAdmin(svc, address, 'Counterfactual wallet');
        const response = await authTest(svc, await wrappedSignIn(address, factoryData, newWallet()));
        assertProblem(response, 401, 'AUTH_SIGNATURE_INVALID');
      });
    });
  });

  test('without AUTH_RPC_URL a contract wallet cannot sign in, and no RPC call is made', async () => {
    const svc = await startTestService('sqlite', { env: { AUTH_DOMAINS: DOMAIN } });
    try {
      const owner = newWallet();
      const wallet = await deployWallet(chain, contracts.wallet, owner);
      await registerAdmin(svc, wallet, 'Contract wallet');
      const headers = await contractSignIn(wallet, owner);
      let response!: HttpResponse;
      const calls = await rpcCallsDuring(chain, async () => {
        response = await authTest(svc, headers);
      });
      assertProblem(response, 401, 'AUTH_SIGNATURE_INVALID');
      assert.deepEqual(calls, []);
    } finally {
      await svc.close();
    }
  });

  test('with the RPC node down the answer is 503 CONTRACT_WALLET_UNAVAILABLE, not a refusal', async () => {
    // A node of its own, so that stopping it leaves the other tests' node alone.
    const doomed = await startLocalChain();
    const svc = await startTestService('sqlite', { env: { AUTH_RPC_URL: doomed.rpcUrl, AUTH_DOMAINS: DOMAIN } });
    try {
      const owner = newWallet();
      const wallet = await deployWallet(doomed, contracts.wallet, owner);
      await registerAdmin(svc, wallet, 'Contract wallet');
      const before = await authTest(svc, await contractSignIn(wallet, owner));
      assert.equal(before.status, 200, `signs in while the node is up: ${before.body}`);

      await doomed.stop();
      // A new message: the one above is remembered as verified and would not reach the node.
      const response = await authTest(svc, await contractSignIn(wallet, owner));
      assertProblem(response, 503, 'CONTRACT_WALLET_UNAVAILABLE');
    } finally {
      await svc.close();
      await doomed.stop();
    }
  });
});
