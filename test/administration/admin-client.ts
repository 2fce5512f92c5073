import type { HttpResponse } from '../helpers/http.ts';
import { request } from '../helpers/http.ts';
import { type AuthHeaders, signIn, signTypedData, type TestWallet } from '../helpers/wallets.ts';

/** Requests of the administration API as one wallet, each signed afresh (a logout elsewhere never gets in the way). */
export class AdminApi {
  constructor(
    readonly baseUrl: string,
    readonly wallet: TestWallet,
    private readonly domain: string,
  ) {}

  async headers(): Promise<AuthHeaders> {
    return signIn(this.wallet, this.domain);
  }

  async send(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...(await this.headers()), ...extra };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return request(this.baseUrl, path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  get = (path: string) => this.send('GET', path);
  post = (path: string, body?: unknown, extra?: Record<string, string>) => this.send('POST', path, body ?? {}, extra);
  patch = (path: string, body: unknown, extra?: Record<string, string>) => this.send('PATCH', path, body, extra);
  put = (path: string) => this.send('PUT', path);
  delete = (path: string, extra?: Record<string, string>) => this.send('DELETE', path, undefined, extra);

  /** Adds `wallet` to the admin: the challenge's typed data, signed by that wallet (eth_signTypedData_v4). */
  async addWallet(adminId: string, wallet: TestWallet, signer: TestWallet = wallet): Promise<HttpResponse> {
    const challenge = await this.post(`/api/admins/${adminId}/wallets/challenge`, { wallet: wallet.address });
    if (challenge.status !== 200) return challenge;
    const { typedData } = challenge.json();
    return this.post(`/api/admins/${adminId}/wallets`, { typedData, signature: await signTypedData(signer, typedData) });
  }
}
