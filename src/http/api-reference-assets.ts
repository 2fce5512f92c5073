import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type StaticFile, staticFile } from './static-file.ts';

/** Swagger UI's prebuilt files, from the installed swagger-ui-dist package: nothing comes from a CDN. */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Where the page finds its files; absolute, so that /api/docs and /api/docs/ load the same ones. */
export const API_REFERENCE_ASSETS_PATH = '/api/docs/assets';

/** The page's own start-up script: a file, since the page's CSP allows no inline script. */
const START_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    // Swagger UI would send the document to an online validator: nothing leaves this origin.
    validatorUrl: null,
  });
});
`;

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
<script src="${API_REFERENCE_ASSETS_PATH}/start.js"></script>
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
    ['start.js', staticFile(Buffer.from(START_SCRIPT), 'text/javascript; charset=utf-8')] as const,
  ]);
  return { page: staticFile(Buffer.from(PAGE), 'text/html; charset=utf-8'), assets };
}
