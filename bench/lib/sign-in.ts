import { createSiweMessage } from 'viem/siwe';
import { PoolSigner } from './pool-signer.ts';

/**
 * The three headers of one valid SIWE sign-in for the bench service at `domain`, valid for
 * `lifetimeMs`: sent again and again, so that after the first request it is a signature-cache hit.
 * The nonce only tells the scenarios' messages apart (the bench service does not require server nonces).
 */
export async function signInHeaders(
  privateKey: `0x${string}`,
  domain: string,
  nonce: string,
  lifetimeMs: number,
): Promise<Record<string, string>> {
  const signer = await PoolSigner.create(privateKey);
  const message = createSiweMessage({
    domain,
    address: signer.address,
    uri: `http://${domain}/`,
    version: '1',
    chainId: 1,
    nonce,
    issuedAt: new Date(),
    expirationTime: new Date(Date.now() + lifetimeMs),
  });
  return { 'X-WAL': signer.address, 'X-SIG': signer.sign(message), 'X-MES': `base64:${Buffer.from(message).toString('base64')}` };
}
