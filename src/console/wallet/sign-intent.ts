import type { Eip1193Provider } from '../../client/index.ts';
import type { TypedData } from '../approvals/types.ts';

/**
 * The wallet signs exactly the typed data the proposal publishes (EIP-712, eth_signTypedData_v4):
 * the console never builds or changes it, so what the wallet shows is what the service checks.
 */
export async function signIntent(provider: Eip1193Provider, address: string, typedData: TypedData): Promise<string> {
  const signature = await provider.request({ method: 'eth_signTypedData_v4', params: [address, JSON.stringify(typedData)] });
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]+$/.test(signature)) throw new Error('The wallet answered no signature');
  return signature;
}
