// What bin/wallet-admin.js runs (dist/, built by npm run build), here from the current sources:
// the entry of the bundle tests start (bundle.ts).
import { main } from '../../src/cli/main.ts';

process.exitCode = await main(process.argv.slice(2));
