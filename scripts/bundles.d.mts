// Types of bundles.mjs for the TypeScript that imports it (test/helpers/bundle.ts, test/client/client.unit.test.ts).
import type { BuildOptions } from 'esbuild';

export declare const BUNDLE_OPTIONS: BuildOptions;
export declare function buildCli(): Promise<void>;
export declare const CLIENT_BUILD_OPTIONS: BuildOptions;
export declare function buildAll(): Promise<void>;
