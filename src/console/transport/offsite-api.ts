import { errorOf, HeldForApproval, ProblemError, type Proposal, type WalletAdminClient } from '../../client/index.ts';

/**
 * The tenant's own off-site copy (docs/offsite.md, "A tenant's own copy"): GET, PUT and DELETE
 * /api/offsite and POST /api/offsite/test, which the typed client does not offer yet. Each request
 * is signed with the client's own message (`signIn()` answers it, renewing it as every other
 * request would), and answered as the client answers: a refusal thrown as ProblemError, a change a
 * policy holds (202) as HeldForApproval.
 */

/** How shipping to the target stands. */
export interface OffsiteStatus {
  /** pending: nothing shipped yet; failing: the last round failed (lastError). */
  state: 'pending' | 'ok' | 'failing';
  /** Seconds since the oldest change the copy does not hold yet (0: none). */
  lagSeconds: number;
  changesPending: number;
  targetId: string | null;
  generation: string | null;
  segment: number | null;
  /** When the last segment reached the target (RFC 3339); null: none yet. */
  lastShipped: string | null;
  bytesShipped: number;
  objectsShipped: number;
  /** The last round's failure, until a round succeeds. */
  lastError: { message: string; at: string } | null;
  /** The last test of the target: `result` is "ok: …" or "failed: …". */
  lastCheck: { ok: boolean; result: string; at: string } | null;
  /** The copy's head, to publish beside the identity: `wallet-admin offsite verify --head-file` checks the copy against it. */
  head: OffsiteHead | null;
}

export interface OffsiteHead {
  target: string;
  generation: string;
  segment: number;
  hash: string;
}

/** The target as the service shows it: never its secret. */
export interface TenantOffsite {
  tenantId: string;
  /** s3://bucket/prefix */
  url: string;
  /** An S3-compatible store's URL; null: AWS S3 in `region`. */
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
  accessKeyId: string;
  recipients: string[];
  setBy: string;
  revision: number;
  createdAt: string;
  updatedAt: string;
  status: OffsiteStatus;
}

/** What PUT /api/offsite takes: the secret goes this once. */
export interface OffsiteTargetRequest {
  url: string;
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  accessKeyId: string;
  secretAccessKey: string;
  recipients: string[];
}

export interface OffsiteCheck {
  ok: boolean;
  /** "ok: …" or "failed: …", saying what was reached or what failed. */
  result: string;
  checkedAt: string;
}

/** Refusals that a fresh signature cures (as the client's own requests are re-signed for). */
const RESIGN_CODES = new Set(['AUTH_MESSAGE_EXPIRED', 'AUTH_MESSAGE_REVOKED']);

interface OffsiteApiOptions {
  /**
   * A 401 or 403 of these requests: the session watches the client's own refusals (a suspension
   * ends it, PERMISSION_DENIED reads who the admin is again); these requests are not the client's.
   */
  onRefused?(refusal: ProblemError): void;
  fetch?: typeof fetch;
}

export function offsiteApi(client: WalletAdminClient, options: OffsiteApiOptions = {}) {
  // A page's fetch must be called on the window.
  const send: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  const signed = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const attempt = async () =>
      send(path, {
        method,
        headers: { ...(await client.signIn()), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    let response = await attempt();
    if (response.status === 401) {
      const error = await errorOf(response.clone());
      if (error instanceof ProblemError && RESIGN_CODES.has(error.code)) {
        // The client's own request meets the same refusal, drops the message and signs anew; this one then goes again with it.
        await client.authTest();
        response = await attempt();
      }
    }
    if (!response.ok) {
      const error = await errorOf(response);
      if (error instanceof ProblemError && (error.status === 401 || error.status === 403)) options.onRefused?.(error);
      throw error;
    }
    if (response.status === 202) throw new HeldForApproval((await response.json()) as Proposal);
    return response;
  };

  return {
    /** The target and how shipping there stands; null when the tenant has set none (OFFSITE_NOT_SET). */
    async get(): Promise<TenantOffsite | null> {
      try {
        return (await (await signed('GET', '/api/offsite')).json()) as TenantOffsite;
      } catch (error) {
        if (error instanceof ProblemError && error.code === 'OFFSITE_NOT_SET') return null;
        throw error;
      }
    },

    /** Sets or replaces the target (offsite.change, which a policy may hold: HeldForApproval). */
    set: async (target: OffsiteTargetRequest): Promise<TenantOffsite> =>
      (await (await signed('PUT', '/api/offsite', target)).json()) as TenantOffsite,

    /** Stops shipping: nothing at the target is deleted (a policy may hold it too). */
    async remove(): Promise<void> {
      await (await signed('DELETE', '/api/offsite')).arrayBuffer();
    },

    /** Reaches the target now, lists the copy and ships what is pending; a failure is an answer (ok: false), not an error. */
    test: async (): Promise<OffsiteCheck> => (await (await signed('POST', '/api/offsite/test')).json()) as OffsiteCheck,
  };
}

export type OffsiteApi = ReturnType<typeof offsiteApi>;
