#!/usr/bin/env node
// Runs the compiled CLI: dist/, built from src/ by `npm run build`, which npm ci, npm start and npm test run.
// The Node.js version is checked first: the one static import is that check (ES imports load before
// any statement runs), and the CLI loads only once it passed. No top-level await, which older
// Node.js versions cannot parse, so that they print the check's message.
import { unsupportedNodeMessage } from './supported-node.js';

const unsupported = unsupportedNodeMessage(process.versions.node, process.execPath);
if (unsupported !== undefined) {
  process.stderr.write(unsupported);
  process.exitCode = 1;
} else {
  import('../dist/main.mjs').then(
    async (cli) => {
      process.exitCode = await cli.main(process.argv.slice(2));
    },
    (error) => {
      // biome-ignore lint/complexity/useOptionalChain: older Node.js versions parse this file before the check, and some know no `?.`
      if (!error || error.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/main.mjs')) throw error;
      process.stderr.write('wallet-admin: not built yet; run "npm run build" (npm ci does) in its folder.\n');
      process.exitCode = 1;
    },
  );
}
