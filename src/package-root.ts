import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The folder of package.json, found as src/version.ts finds the file: one level above this module,
 * which holds both here (src/) and in the build (dist/*.mjs).
 */
export const PACKAGE_ROOT: string = path.dirname(createRequire(import.meta.url).resolve('../package.json'));
