import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Address, hashTypedData } from 'viem';
import { verifyExport } from '../../src/audit-chain/verify-export.ts';
import { AdminApi } from '../administration/admin-client.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { deployWallet } from '../helpers/contract-wallets.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { type CompiledContract, compileContracts, type LocalChain, startLocalChain } from '../helpers/local-chain.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn, type TestWallet } from '../helpers/wallets.ts';

const DOMAIN = 'contract-intents.example.com';
const CHAIN_ID = 31337;

/** Sign-in messages name anvil's chain: AUTH_CHAIN_IDS accepts no other. */
class ChainAdminApi extends AdminApi {
  override headers() {
    return signIn(this.wallet, DOMAIN, { chainId: CHAIN_ID });
  }
}
const ownerHeaders = async (wallet: TestWallet) => ({ ...(await signIn(wallet, DOMAIN, { chainId: CHAIN_ID })) });

/** The EIP-712 digest of a proposal's typed data, as the service computes it (EIP712Domain left out of types). */
function digestOf(typedData: Record<string, any>): `0x${string}` {
  const { domain, types, primaryType, message } = typedData;
  const { EIP712Domain: _domain, ...own } = types;
  return hashTypedData({ domain, types: own, primaryType, message });
}

/** An EOA's intent: eth_signTypedData_v4 of exactly the published typed data. */
async function eoaIntent(wallet: TestWallet, typedData: Record<string, any>): Promise<{ wallet: string; signature: string }> {
  const { domain, types, primaryType, message } = typedData;
  const { EIP712Domain: _domain, ...own } = types;
  return { wallet: wallet.address, signature: await wallet.account.signTypedData({ domain, types: own, primaryType, message }) };
}

/**
 * A contract wallet's intent: test/fixtures/contracts/OwnerWallet.sol approves (EIP-1271) a hash its
 * owner key signed raw (ecrecover of the hash itself, no personal_sign prefix), so the owner signs
 * the EIP-712 digest directly.
 */
async function contractIntent(contract: Address, ownerKey: TestWallet, typedData: Record<string, any>) {
  return { wallet: contract, signature: await ownerKey.account.sign({ hash: digestOf(typedData) }) };
}

/**
 * A proposal approved by a contract wallet (EIP-1271) on a real Anvil node: a 2-of-2 channel restore
 * whose second approver is an admin whose wallet is an OwnerWallet contract. The typed data's chain is
 * the first of AUTH_CHAIN_IDS, the one the node serves; the service asks the contract through the
 * node; a second instance on the same database without AUTH_RPC_URL cannot, and refuses.
 */
for (const engine of ENGINES) {
  describe(`contract-wallet intents on a local EVM node (${engine})`, () => {
    let chain: LocalChain;
    let walletContract: CompiledContract;
    let storage: Storage;
    let svc: TestService;
    let noRpc: TestService;
    let fixture: TenantFixture;
    let owner: AdminApi;
    let files: FilesClient;
    let contractOwnerKey: TestWallet;
    let contractWallet: Address;
    let contractAdminId: string;

    before(async () => {
      walletContract = (await compileContracts()).OwnerWallet!;
      chain = await startLocalChain({ chainId: CHAIN_ID });
      storage = await createStorage(engine);
      svc = await startTestService(engine, {
        storage,
        env: { AUTH_DOMAINS: DOMAIN, AUTH_RPC_URL: chain.rpcUrl, AUTH_CHAIN_IDS: String(chain.chainId) },
      });
      noRpc = await startTestService(engine, { storage, env: { AUTH_DOMAINS: DOMAIN, AUTH_CHAIN_IDS: String(chain.chainId) } });
      fixture = await createTenantFixture(svc.service.store);
      owner = new ChainAdminApi(svc.baseUrl, fixture.ownerWallet, DOMAIN);
      files = new FilesClient(svc.baseUrl, fixture.channel.id, await ownerHeaders(fixture.ownerWallet));

      contractOwnerKey = newWallet();
      contractWallet = await deployWallet(chain, walletContract, contractOwnerKey);
      const created = await owner.post('/api/admins', {
        displayName: 'Safe-like',
        wallet: contractWallet,
        permissions: ['files:read', 'files:restore'],
        channels: [fixture.channel.id],
      });
      assert.equal(created.status, 201, created.body);
      contractAdminId = created.json().id;
      const policy = await owner.send('PUT', '/api/policies', {
        rules: [{ operation: 'channel.restore', approvals: 2, permission: 'files:restore' }],
      });
      assert.equal(policy.status, 200, policy.body);
    });
    after(async () => {
      await noRpc?.close();
      await svc?.close();
      await storage?.drop();
      await chain?.stop();
    });

    const content = async (name: string) => {
      const got = await files.get('docs', name);
      return got.status === 200 ? got.body : null;
    };

    test("a contract wallet joins an admin with its EIP-1271 proof of the challenge's typed data; another key's is refused", async () => {
      const joining = await deployWallet(chain, walletContract, contractOwnerKey);
      const challenge = await owner.post(`/api/admins/${fixture.owner.id}/wallets/challenge`, { wallet: joining });
      assert.equal(challenge.status, 200, challenge.body);
      const { typedData } = challenge.json();
      assert.equal(typedData.domain.chainId, chain.chainId, 'the domain names the chain the RPC serves');
      const forged = await owner.post(`/api/admins/${fixture.owner.id}/wallets`, {
        typedData,
        signature: (await contractIntent(joining, newWallet(), typedData)).signature,
      });
      await assertProblem(forged, 400, 'WALLET_PROOF_INVALID');
      // A refused proof used the challenge up: the contract's owner signs a fresh one.
      const fresh = (await owner.post(`/api/admins/${fixture.owner.id}/wallets/challenge`, { wallet: joining })).json().typedData;
      const before = chain.rpcMethods.length;
      const added = await owner.post(`/api/admins/${fixture.owner.id}/wallets`, {
        typedData: fresh,
        signature: (await contractIntent(joining, contractOwnerKey, fresh)).signature,
      });
      assert.equal(added.status, 201, added.body);
      assert.equal(added.json().address.toLowerCase(), joining.toLowerCase());
      assert.ok(chain.rpcMethods.slice(before).includes('eth_call'), 'the contract was asked');
    });

    test('the contract wallet approval counts (kind contract) and the restore runs; wrong key and no RPC are refused; the export verifies', async () => {
      // docs/a.txt backed up, then changed and c.txt added: the restore replaces a and deletes c.
      assert.equal((await files.put('docs', 'a.txt', 'a-old')).status, 201);
      await nextSecond();
      const made = await files.backup();
      assert.equal(made.status, 201, made.body);
      const backup = made.json().timestamp;
      assert.equal((await files.put('docs', 'a.txt', 'a-new')).status, 200);
      assert.equal((await files.put('docs', 'c.txt', 'c')).status, 201);

      const held = await owner.post(`/api/channels/${fixture.channel.id}/restore?backupTimestamp=${backup}&delete=true`);
      assert.equal(held.status, 202, held.body);
      const proposal = held.json();
      assert.equal(proposal.typedData.domain.chainId, chain.chainId, 'the domain names the chain the RPC serves');
      assert.ok(proposal.eligibleAdminIds.includes(contractAdminId));

      const first = await owner.post(`/api/proposals/${proposal.id}/approvals`, await eoaIntent(fixture.ownerWallet, proposal.typedData));
      assert.equal(first.status, 200, first.body);
      assert.equal(first.json().approvalsCounted, 1);

      // Signed by a key that is not the contract's owner: the contract refuses it.
      const forged = await contractIntent(contractWallet, newWallet(), proposal.typedData);
      await assertProblem(await owner.post(`/api/proposals/${proposal.id}/approvals`, forged), 400, 'INTENT_SIGNATURE_INVALID');

      // The right signature, on an instance with no RPC: nothing can ask the contract, so it is refused.
      const good = await contractIntent(contractWallet, contractOwnerKey, proposal.typedData);
      const blind = new ChainAdminApi(noRpc.baseUrl, fixture.ownerWallet, DOMAIN);
      await assertProblem(await blind.post(`/api/proposals/${proposal.id}/approvals`, good), 400, 'INTENT_SIGNATURE_INVALID');
      assert.equal(await content('a.txt'), 'a-new', 'nothing ran yet');
      assert.equal((await owner.get(`/api/proposals/${proposal.id}`)).json().approvalsCounted, 1);

      const before = chain.rpcMethods.length;
      const last = await owner.post(`/api/proposals/${proposal.id}/approvals`, good);
      assert.equal(last.status, 200, last.body);
      assert.ok(chain.rpcMethods.slice(before).includes('eth_call'), 'the contract was asked');
      const done = last.json();
      assert.equal(done.status, 'executed', JSON.stringify(done));
      assert.equal(done.approvalsCounted, 2);
      const approval = done.approvals.find((a: { adminId: string }) => a.adminId === contractAdminId);
      assert.deepEqual(
        { wallet: approval.wallet.toLowerCase(), kind: approval.kind, counts: approval.counts },
        { wallet: contractWallet.toLowerCase(), kind: 'contract', counts: true },
      );
      assert.equal(await content('a.txt'), 'a-old');
      assert.equal(await content('c.txt'), null);

      // The log verifies offline; the contract approval is the one the verifier cannot check alone.
      const exported = await request(svc.baseUrl, '/api/audit/export', { headers: await ownerHeaders(fixture.ownerWallet) });
      assert.equal(exported.status, 200, exported.body);
      const summary = await verifyExport(exported.body.split('\n'));
      assert.equal(summary.ok, true, JSON.stringify(summary.failure));
      // Two entries carry the intents: the restore itself and the proposal's execution.
      assert.equal(summary.intents.entries, 2);
      assert.equal(summary.intents.verifiedSignatures, 2, "the owner's EOA intent is recovered, in each");
      assert.equal(summary.intents.needChainLookup, 2, "the contract wallet's intent needs a chain lookup, in each");
      assert.equal(summary.intents.quorumsNeedingChainLookup, 2, 'the 2-of-2 quorum rests on it');
    });
  });
}
