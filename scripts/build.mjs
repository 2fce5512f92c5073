// `npm run build` (also `prepare`, so npm ci, and `prestart`, `pretest`…): checks the Node.js version,
// then writes dist/ (scripts/bundles.mjs says what and why). The check comes first and alone: the
// bundler's imports would load before any statement of a module that imported them, and on an old
// Node.js npm ci installed nothing to import. No top-level await, which old versions cannot parse.
import { unsupportedNodeMessage } from '../bin/supported-node.js';

const unsupported = unsupportedNodeMessage(process.versions.node, process.execPath);
if (unsupported !== undefined) {
  process.stderr.write(unsupported);
  process.exitCode = 1;
} else {
  import('./bundles.mjs').then((bundles) => bundles.buildAll());
}
