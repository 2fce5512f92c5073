// What bin/wallet-admin.js runs, without tsx's loader: the entry of the bundle tests start (bundle.ts).
import { main } from '../../src/cli/main.ts';

process.exitCode = await main(process.argv.slice(2));
