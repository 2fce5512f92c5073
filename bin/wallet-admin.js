#!/usr/bin/env node
// Runs the compiled CLI: dist/, built from src/ by `npm run build`, which npm ci, npm start and npm test run.
let cli;
try {
  cli = await import('../dist/main.mjs');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/main.mjs')) throw error;
  process.stderr.write('wallet-admin: not built yet; run "npm run build" (npm ci does) in its folder.\n');
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2));
