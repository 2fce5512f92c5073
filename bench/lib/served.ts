import path from 'node:path';
import type { Checkout } from './checkout.ts';
import { createDeployment, type Deployment, type Engine } from './deployment.ts';
import type { BenchContext } from './scenario.ts';
import { type BaselineName, type RunningServer, startBaseline, startService } from './servers.ts';

/** A service on a deployment of its own. */
export interface Served {
  server: RunningServer;
  deployment: Deployment;
}

/**
 * The servers of one measurement, all running at once (those not under load idle), stopped together
 * in reverse order of their start: a comparison interleaves its sides' runs, so they must all be up.
 */
export class ServerGroup {
  private readonly stops: (() => Promise<void>)[] = [];

  constructor(private readonly context: BenchContext) {}

  /**
   * `wallet-admin serve` of `checkout` (default: this one) on a fresh deployment; `name` tells its
   * log apart from the other services' of the run.
   */
  async service(
    engine: Engine,
    options: {
      env?: Record<string, string>;
      checkout?: Checkout;
      name?: string;
      /** The DATABASE_URL the service is given for its deployment's (the CLI that made it used the database's own). */
      databaseUrl?: (url: string) => string;
    } = {},
  ): Promise<Served> {
    const deployment = await createDeployment(engine, options.checkout);
    const { DATABASE_URL } = deployment.env;
    const relayed: Record<string, string> =
      DATABASE_URL !== undefined && options.databaseUrl ? { DATABASE_URL: options.databaseUrl(DATABASE_URL) } : {};
    const logFile = path.join(this.context.logDir, `service-${engine}${options.name ? `-${options.name}` : ''}.log`);
    let server: RunningServer;
    try {
      server = await startService(
        { ...deployment.env, ...relayed, ...options.env, ...this.context.serviceEnv },
        logFile,
        this.context.profileDir,
        options.checkout,
      );
    } catch (error) {
      await deployment.remove();
      throw error;
    }
    this.stops.push(async () => {
      await server.stop();
      await deployment.remove();
    });
    return { server, deployment };
  }

  /** One of the baseline servers in bench/baselines. */
  async baseline(name: BaselineName, env: Record<string, string> = {}): Promise<RunningServer> {
    const server = await startBaseline(name, path.join(this.context.logDir, `${name}.log`), env);
    this.stops.push(() => server.stop());
    return server;
  }

  /** Stops every server (the last started first); the first failure is thrown once all were tried. */
  async close(): Promise<void> {
    let failure: unknown;
    for (const stop of this.stops.splice(0).reverse()) await stop().catch((error: unknown) => (failure ??= error));
    if (failure !== undefined) throw failure;
  }
}

/** `work` with a group of servers, all stopped when it ends, however it ends. */
export async function withServers<T>(context: BenchContext, work: (servers: ServerGroup) => Promise<T>): Promise<T> {
  const servers = new ServerGroup(context);
  try {
    return await work(servers);
  } finally {
    await servers.close();
  }
}

/** A served deployment for the duration of `work`. */
export function withService<T>(
  context: BenchContext,
  engine: Engine,
  env: Record<string, string>,
  work: (server: RunningServer, deployment: Deployment) => Promise<T>,
): Promise<T> {
  return withServers(context, async (servers) => {
    const { server, deployment } = await servers.service(engine, { env });
    return work(server, deployment);
  });
}

/** A baseline server for the duration of `work`. */
export function withBaseline<T>(
  context: BenchContext,
  name: BaselineName,
  work: (server: RunningServer) => Promise<T>,
  env: Record<string, string> = {},
): Promise<T> {
  return withServers(context, async (servers) => work(await servers.baseline(name, env)));
}
