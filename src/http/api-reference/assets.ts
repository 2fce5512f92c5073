import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AppError } from '../../errors/app-error.ts';
import { errnoCode } from '../../errors/errno-code.ts';
import { PACKAGE_ROOT } from '../../package-root.ts';
import { type StaticFile, staticFile } from '../server/static-file.ts';

/** Swagger UI's prebuilt files, from the installed swagger-ui-dist package: nothing comes from a CDN. */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Where the page finds its files; absolute, so that /api/docs and /api/docs/ load the same ones. */
export const API_REFERENCE_ASSETS_PATH = '/api/docs/assets';

/**
 * The page's own start-up script (src/api-reference/start.ts, with the Authorize dialog's box that
 * takes all of `wallet-admin sign` at once): a file, since the page's CSP allows no inline script.
 */
const START_SCRIPT = path.join(PACKAGE_ROOT, 'dist', 'api-reference', 'start.js');
const START_SCRIPT_NAME = 'start.js';

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>wallet-admin API reference</title>
<link rel="icon" type="image/png" href="${API_REFERENCE_ASSETS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${API_REFERENCE_ASSETS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${API_REFERENCE_ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="${API_REFERENCE_ASSETS_PATH}/${START_SCRIPT_NAME}"></script>
</body>
</html>
`;

export interface ApiReferenceAssets {
  page: StaticFile;
  /** By the name under API_REFERENCE_ASSETS_PATH; nothing else is served. */
  assets: ReadonlyMap<string, StaticFile>;
}

/**
 * Read on the first request, not at start-up: about 2 MB that most services (and every test
 * service) never serve. Kept afterwards, so a request names only what is in the map.
 */
export function apiReferenceAssets(): () => Promise<ApiReferenceAssets> {
  let loaded: Promise<ApiReferenceAssets> | undefined;
  return () => {
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
}

async function load(): Promise<ApiReferenceAssets> {
  const packaged = async (name: string, contentType: string) =>
    [name, staticFile(await readFile(path.join(SWAGGER_UI_DIR, name)), contentType)] as const;
  const assets = new Map([
    await packaged('swagger-ui-bundle.js', 'text/javascript; charset=utf-8'),
    await packaged('swagger-ui.css', 'text/css; charset=utf-8'),
    await packaged('favicon-32x32.png', 'image/png'),
  ]);
  const start = await readStartScript();
  if (start !== undefined) assets.set(START_SCRIPT_NAME, staticFile(start, 'text/javascript; charset=utf-8'));
  return { page: staticFile(Buffer.from(PAGE), 'text/html; charset=utf-8'), assets };
}

/** The built start script; undefined when the build never ran (the page itself is still served). */
async function readStartScript(): Promise<Buffer | undefined> {
  try {
    return await readFile(START_SCRIPT);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** What a request for a file the reference does not have is answered. */
export function missingAsset(name: string): AppError {
  if (name === START_SCRIPT_NAME) return new AppError('CONSOLE_NOT_BUILT', "The API reference's script was never built: run npm run build");
  return new AppError('NOT_FOUND', `The API reference has no file ${name.slice(0, 100)}`);
}
