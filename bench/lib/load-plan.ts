/** What one load run sends; passed to the load process as JSON. */
export interface LoadPlan {
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  /** Paths cycled through, one per request. */
  paths: string[];
  /**
   * Instead of `paths`, a new path for every request: this template with `{n}` replaced by a name no
   * other request of any run has (the load process's pid, its start and the request's number), so
   * that every upload creates a file.
   */
  freshPaths?: string;
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections; unset = as fast as the server answers. */
  overallRate?: number;
  headers?: Record<string, string>;
  /**
   * Headers of each path, by its index in `paths`, added to `headers`: a load over several tenants,
   * each path signed by its own tenant's admin.
   */
  pathHeaders?: Record<string, string>[];
  /** Sent with every request (uploads). */
  body?: string;
  /**
   * A pre-signed pool of SIWE sign-ins, one per request and none sent twice: signed in the load
   * process before the clock starts. `bad` signs each message with another key, so that every
   * request costs the server a recovery and ends in 401. `reusable` lets the run cycle through
   * the pool: right for invalid sign-ins, which are never cached and cost a recovery every time.
   */
  siwe?: { privateKey: `0x${string}`; domain: string; size: number; bad?: boolean; badKey?: `0x${string}`; reusable?: boolean };
}

/** What the load process reports back. */
export interface LoadResult {
  requests: number;
  durationSeconds: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  /**
   * Set when the run ended on its pre-signed pool before its planned time: every sign-in it sent
   * was still new, and its figures cover the time it ran (`durationSeconds`).
   */
  poolSpent?: { size: number; plannedSeconds: number };
}
