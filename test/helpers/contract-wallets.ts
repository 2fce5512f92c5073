import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Address } from 'viem';
import { type HttpResponse, request } from './http.ts';
import { type CompiledContract, deploy, type LocalChain } from './local-chain.ts';
import type { TestService } from './test-service.ts';
import { type AuthHeaders, base64Header, siweMessage, type TestWallet } from './wallets.ts';

/** The SIWE domain of the contract-wallet tests' services (AUTH_DOMAINS). */
export const DOMAIN = 'admin.wallet.test';

export function freshNonce(): string {
  return randomBytes(8).toString('hex');
}

/** Headers for a SIWE message naming `wallet` (a contract) on `chainId` (anvil's unless told), personal-signed by `signer`. */
export async function contractSignIn(wallet: Address, signer: TestWallet, chainId = 31337): Promise<Record<string, string>> {
  const message = siweMessage({ address: wallet }, DOMAIN, { chainId, nonce: freshNonce() });
  const signature = await signer.account.signMessage({ message });
  return { 'X-WAL': wallet, 'X-SIG': signature, 'X-MES': base64Header(message) };
}

export function authTest(svc: TestService, headers: Record<string, string> | AuthHeaders): Promise<HttpResponse> {
  return request(svc.baseUrl, '/api/auth/test', { headers: { ...headers } });
}

export async function registerAdmin(svc: TestService, wallet: Address, displayName: string): Promise<string> {
  const tenant = await svc.service.store.createTenant({ name: `${displayName} ${freshNonce()}` });
  const admin = await svc.service.store.createAdmin({ tenantId: tenant.id, wallet, displayName });
  return admin.id;
}

/** Calls that reached the node through its pass-through while `action` ran. */
export async function rpcCallsDuring(chain: LocalChain, action: () => Promise<void>): Promise<string[]> {
  const before = chain.rpcMethods.length;
  await action();
  return chain.rpcMethods.slice(before);
}

/** Deploys an OwnerWallet of `owner` and checks that code is there. */
export async function deployWallet(chain: LocalChain, wallet: CompiledContract, owner: TestWallet): Promise<Address> {
  const address = await deploy(chain, wallet, [owner.address]);
  const code = await chain.publicClient.getCode({ address });
  assert.ok(code !== undefined && code.length > 2, 'the wallet is a deployed contract');
  return address;
}
