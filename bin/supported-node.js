// Which Node.js versions run wallet-admin, and what a user of another one is told. Every entry point
// (bin/wallet-admin.js, scripts/build.mjs) asks here before it loads anything else: on an older Node
// the native SQLite addon crashes (a segmentation fault) after the service has begun to fill its
// DATA_DIR, and the build stops at an import of a package that `npm ci` refused to install there.
// So this file imports nothing and keeps to syntax that old Node.js versions parse (no `?.`, `??`
// or top-level await), so that they reach the message.

/** The oldest major release that runs wallet-admin: package.json's engines (">=22"), which a test keeps equal. */
export const MINIMUM_NODE_MAJOR = 22;

/** The majors CI tests (.ci/run), as README names them; a test keeps the three in agreement. */
export const TESTED_NODE_MAJORS = [22, 24, 26];

/** The major release to suggest: the newest LTS line, on which CI runs the whole suite. */
const RECOMMENDED_NODE_MAJOR = 24;

/**
 * What to tell a user whose Node.js is `version` (process.versions.node, e.g. "20.20.2"), started as
 * `execPath`; undefined when it runs wallet-admin.
 */
export function unsupportedNodeMessage(version, execPath) {
  const major = Number(String(version).split('.')[0]);
  if (major >= MINIMUM_NODE_MAJOR) return undefined;
  const tested = `${TESTED_NODE_MAJORS.slice(0, -1).join(', ')} and ${TESTED_NODE_MAJORS[TESTED_NODE_MAJORS.length - 1]}`;
  return (
    `wallet-admin needs Node.js ${MINIMUM_NODE_MAJOR} or later (tested on ${tested}); this is Node.js ${version} (${execPath}).\n` +
    'Nothing was started and nothing was written.\n' +
    `Install a supported Node.js, e.g. ${RECOMMENDED_NODE_MAJOR} (LTS): https://nodejs.org/en/download, or with a version manager\n` +
    `(nvm install ${RECOMMENDED_NODE_MAJOR}, fnm install ${RECOMMENDED_NODE_MAJOR}) or your system's packages. Then, with it first on PATH\n` +
    '(node --version), run `npm ci` in this folder again (npm refuses to install with an older Node.js),\n' +
    'and the command once more.\n'
  );
}
