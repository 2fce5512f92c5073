import { performance } from 'node:perf_hooks';
import { type CallGate, GateRefusal } from './call-gate.ts';

export type RpcMethod = 'eth_chainId' | 'eth_getCode' | 'eth_call';

/**
 * How one call ended: `ok` the node answered (a revert included), `error` no usable answer
 * (unreachable, HTTP error, not JSON-RPC, an error reply other than a revert), `timeout` past its
 * deadline, `rejected-busy` never sent because too many calls were in flight and waiting.
 */
export type RpcResult = 'ok' | 'error' | 'timeout' | 'rejected-busy';

/** Sees every call asked of a node; `seconds` is the exchange's duration, undefined when nothing was sent. */
export type RpcObserver = (chain: string, method: RpcMethod, result: RpcResult, seconds: number | undefined) => void;

/** The node gave no answer. The message says why, never naming the URL (it may hold a key). */
export class RpcUnavailable extends Error {
  constructor(
    readonly result: Exclude<RpcResult, 'ok'>,
    message: string,
  ) {
    super(message);
    this.name = 'RpcUnavailable';
  }
}

/** The node answered that the call reverted: an answer (the contract said no), not a failure. */
export class RpcReverted extends Error {
  constructor() {
    super('execution reverted');
    this.name = 'RpcReverted';
  }
}

export interface JsonRpcNodeOptions {
  /** Shared by every node of the service: the bound is on all RPC calls together. */
  gate: CallGate;
  timeoutMs: number;
  observe: RpcObserver;
}

/**
 * One node's JSON-RPC over HTTP: one POST per call, no retry (a retry would multiply the calls a
 * flood causes), each call bounded by the gate and by a deadline that includes its wait for a turn.
 */
export class JsonRpcNode {
  private readonly endpoint: string;
  private readonly headers: Record<string, string> = { 'content-type': 'application/json' };
  private nextId = 1;

  constructor(
    url: string,
    private readonly options: JsonRpcNodeOptions,
  ) {
    // fetch refuses a URL holding credentials; they travel as Basic authorization instead.
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.password !== '') {
      const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
      parsed.username = '';
      parsed.password = '';
    }
    this.endpoint = parsed.href;
  }

  /** The call's `result`; throws RpcReverted or RpcUnavailable. `chain` labels the call for the observer. */
  async request(chain: string, method: RpcMethod, params: unknown[]): Promise<unknown> {
    const { gate, timeoutMs, observe } = this.options;
    const deadline = Date.now() + timeoutMs;
    let release: () => void;
    try {
      release = await gate.enter(deadline);
    } catch (error) {
      if (!(error instanceof GateRefusal)) throw error;
      observe(chain, method, error.reason === 'busy' ? 'rejected-busy' : 'timeout', undefined);
      throw new RpcUnavailable(
        error.reason === 'busy' ? 'rejected-busy' : 'timeout',
        error.reason === 'busy' ? 'too many RPC calls in flight' : `no answer within ${timeoutMs / 1000} s`,
      );
    }
    const started = performance.now();
    try {
      const result = await this.exchange(method, params, deadline);
      observe(chain, method, 'ok', (performance.now() - started) / 1000);
      return result;
    } catch (error) {
      const failure = error instanceof RpcReverted || error instanceof RpcUnavailable ? error : unavailable(error, timeoutMs);
      observe(chain, method, failure instanceof RpcReverted ? 'ok' : failure.result, (performance.now() - started) / 1000);
      throw failure;
    } finally {
      release();
    }
  }

  private async exchange(method: RpcMethod, params: unknown[], deadline: number): Promise<unknown> {
    const signal = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: this.headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new RpcUnavailable('error', `HTTP ${response.status}`);
    }
    let reply: unknown;
    try {
      reply = await response.json();
    } catch (error) {
      if (signal.aborted) throw error;
      throw new RpcUnavailable('error', 'the answer is not JSON');
    }
    return resultOf(reply);
  }
}

function resultOf(reply: unknown): unknown {
  if (typeof reply !== 'object' || reply === null) throw new RpcUnavailable('error', 'the answer is not a JSON-RPC reply');
  if ('result' in reply) return reply.result;
  const error = 'error' in reply ? (reply.error as { code?: unknown; message?: unknown } | null) : undefined;
  if (typeof error !== 'object' || error === null) throw new RpcUnavailable('error', 'the answer is not a JSON-RPC reply');
  // Nodes report a revert as code 3 (geth, anvil, with revert data) or as a message (older geth: -32000).
  if (error.code === 3 || (typeof error.message === 'string' && /revert/i.test(error.message))) throw new RpcReverted();
  throw new RpcUnavailable('error', `JSON-RPC error ${typeof error.code === 'number' ? error.code : '(no code)'}`);
}

function unavailable(error: unknown, timeoutMs: number): RpcUnavailable {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new RpcUnavailable('timeout', `no answer within ${timeoutMs / 1000} s`);
  }
  // fetch's own message is "fetch failed"; the cause's code (ECONNREFUSED …) says what happened.
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return new RpcUnavailable('error', typeof code === 'string' ? `unreachable (${code})` : 'unreachable');
}
