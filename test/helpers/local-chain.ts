import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http as httpTransport,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { serverNeeded } from './backends.ts';

const require = createRequire(import.meta.url);
const CONTRACTS_DIR = fileURLToPath(new URL('../fixtures/contracts/', import.meta.url));
const START_TIMEOUT_MS = 15_000;

/**
 * How the pass-through treats the calls that arrive (each is counted in any case): `forward` to
 * the node; `stall`, held unanswered until the mode changes back (then forwarded) or the chain
 * stops; `fail`, answered 502 without asking the node.
 */
export type PassThroughMode = 'forward' | 'stall' | 'fail';

export interface LocalChain {
  chainId: number;
  /** The node itself, for the test's own deploys and reads; not counted. */
  nodeUrl: string;
  /** A counting pass-through to the node: the URL to give the service as AUTH_RPC_URL. */
  rpcUrl: string;
  /** Every JSON-RPC method that arrived through rpcUrl, in order (a batch adds each of its calls). */
  rpcMethods: string[];
  /** The Authorization header of every HTTP request through rpcUrl, in order. */
  rpcAuthorizations: (string | undefined)[];
  passThrough(mode: PassThroughMode): void;
  publicClient: PublicClient;
  walletClient: WalletClient;
  /** An account the node holds unlocked and funded; it pays for deployments. */
  deployer: Address;
  /** What the node printed, for failure messages. */
  output(): string;
  /** Stops node and pass-through, so rpcUrl refuses connections from then on. */
  stop(): Promise<void>;
}

/**
 * Anvil comes as a plain executable inside a per-platform npm package. The project depends on
 * that package directly: the `@foundry-rs/anvil` wrapper names every platform's package, and the
 * registry these machines reach only has the linux-x64 one, so its lockfile could not install.
 */
function anvilBinary(): string {
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch];
  const name = `@foundry-rs/anvil-${process.platform}-${arch ?? process.arch}`;
  let manifest: string;
  try {
    manifest = require.resolve(`${name}/package.json`);
  } catch {
    throw new Error(`${name} is not installed; the devDependency @foundry-rs/anvil-linux-amd64 only serves Linux x64`);
  }
  return path.join(path.dirname(manifest), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

/** Starts a fresh Anvil node (chain 31337 unless told) on a random loopback port, with a counting pass-through in front of it. */
export async function startLocalChain(options: { chainId?: number } = {}): Promise<LocalChain> {
  serverNeeded('A local chain (anvil)');
  const chainId = options.chainId ?? 31337;
  const node = spawn(anvilBinary(), ['--host', '127.0.0.1', '--port', '0', '--accounts', '1', '--chain-id', String(chainId)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Anvil logs every call; the pipe must be drained or the node stalls once it fills.
  let printed = '';
  const record = (chunk: Buffer) => {
    printed = (printed + chunk.toString('utf8')).slice(-20_000);
  };
  node.stdout!.on('data', record);
  node.stderr!.on('data', record);
  // A test run that ends without stop() must not leave a node behind.
  const killOnExit = () => node.kill('SIGKILL');
  process.once('exit', killOnExit);

  let nodeUrl: string;
  try {
    nodeUrl = await listeningUrl(node, () => printed);
  } catch (error) {
    node.kill('SIGKILL');
    process.removeListener('exit', killOnExit);
    throw error;
  }

  const rpcMethods: string[] = [];
  const rpcAuthorizations: (string | undefined)[] = [];
  let mode: PassThroughMode = 'forward';
  let held: (() => void)[] = [];
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      rpcMethods.push(...methodsOf(body));
      rpcAuthorizations.push(req.headers.authorization);
      const forward = () => {
        fetch(nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          .then(async (answer) => {
            res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
            res.end(Buffer.from(await answer.arrayBuffer()));
          })
          .catch(() => {
            res.writeHead(502).end();
          });
      };
      if (mode === 'fail') res.writeHead(502).end();
      else if (mode === 'stall') held.push(forward);
      else forward();
    });
  });
  const passThrough = (next: PassThroughMode) => {
    mode = next;
    if (next === 'stall') return;
    const release = held;
    held = [];
    for (const forward of release) forward();
  };
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const rpcUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killOnExit);
    held = [];
    // Kept-alive sockets would otherwise stay open and let a "stopped" node look merely slow.
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    if (node.exitCode === null && node.signalCode === null) {
      const exited = new Promise<void>((resolve) => node.once('exit', () => resolve()));
      node.kill('SIGTERM');
      await exited;
    }
  };

  const publicClient = createPublicClient({ transport: httpTransport(nodeUrl) });
  const walletClient = createWalletClient({ transport: httpTransport(nodeUrl) });
  let deployer: Address | undefined;
  try {
    [deployer] = await walletClient.getAddresses();
    if (deployer === undefined) throw new Error('Anvil reported no unlocked account');
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    chainId,
    nodeUrl,
    rpcUrl,
    rpcMethods,
    rpcAuthorizations,
    passThrough,
    publicClient,
    walletClient,
    deployer,
    output: () => printed,
    stop,
  };
}

function listeningUrl(node: ChildProcess, printed: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`Anvil did not start within ${START_TIMEOUT_MS} ms:\n${printed()}`)), START_TIMEOUT_MS);
    const onData = () => {
      const match = /Listening on (127\.0\.0\.1:\d+)/.exec(printed());
      if (match) finish(() => resolve(`http://${match[1]}`));
    };
    const onExit = (code: number | null) => fail(new Error(`Anvil exited (${code}) before listening:\n${printed()}`));
    const fail = (error: Error) => finish(() => reject(error));
    const onError = (error: Error) => fail(error);
    function finish(settle: () => void) {
      clearTimeout(timer);
      node.stdout!.off('data', onData);
      node.off('exit', onExit);
      node.off('error', onError);
      settle();
    }
    // Registered after the recording listener, so printed() already holds this chunk.
    node.stdout!.on('data', onData);
    node.once('exit', onExit);
    node.once('error', onError);
  });
}

function methodsOf(body: Buffer): string[] {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    return calls.map((call) => String((call as { method?: unknown } | null)?.method ?? '(no method)'));
  } catch {
    return ['(unparsable)'];
  }
}

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

let compiled: Promise<Record<string, CompiledContract>> | undefined;

/**
 * Compiles every test/fixtures/contracts/*.sol with solc-js, once per process. The EVM version
 * is pinned so that a newer solc cannot emit opcodes the node does not know yet.
 */
export function compileContracts(): Promise<Record<string, CompiledContract>> {
  compiled ??= (async () => {
    const { default: solc } = await import('solc');
    const files = readdirSync(CONTRACTS_DIR).filter((file) => file.endsWith('.sol'));
    const sources = Object.fromEntries(files.map((file) => [file, { content: readFileSync(path.join(CONTRACTS_DIR, file), 'utf8') }]));
    const input = {
      language: 'Solidity',
      sources,
      settings: {
        evmVersion: 'cancun',
        optimizer: { enabled: true, runs: 200 },
        outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
      },
    };
    const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
      errors?: { severity: string; formattedMessage: string }[];
      contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
    };
    const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
    if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
    const contracts: Record<string, CompiledContract> = {};
    for (const byName of Object.values(output.contracts ?? {})) {
      for (const [name, contract] of Object.entries(byName)) {
        contracts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
      }
    }
    return contracts;
  })();
  return compiled;
}

/** Deploys `contract` from the chain's deployer and waits until it is mined. */
export async function deploy(chain: LocalChain, contract: CompiledContract, args: readonly unknown[]): Promise<Address> {
  const hash = await chain.walletClient.deployContract({
    abi: contract.abi,
    bytecode: contract.bytecode,
    args,
    account: chain.deployer,
    chain: null,
  });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`Deployment failed: ${receipt.status}`);
  return getAddress(receipt.contractAddress);
}
