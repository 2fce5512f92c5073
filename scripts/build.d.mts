// Types of build.mjs for the TypeScript that imports it (test/helpers/bundle.ts).
import type { BuildOptions } from 'esbuild';

export declare const BUNDLE_OPTIONS: BuildOptions;
export declare function buildCli(): Promise<void>;
