import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.ts';
import { pagePolicy, sendPagePolicy } from '../server/page-policy.ts';
import { sendStaticFile } from '../server/static-file.ts';
import type { ConsoleAssets } from './assets.ts';

/**
 * The strict page policy, no inline style either. A wallet extension injects its provider from its
 * own content script, which a page's CSP does not govern.
 */
const CONSOLE_CSP = pagePolicy({ blobImages: true });

/** index.html names the current hashed files, so a browser asks again each time (304 when unchanged). */
const INDEX_CACHE = 'no-cache';
/** A hashed name never changes content: a new build has new names. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

const NOT_BUILT_MESSAGE = 'The console was not built (no dist/console/index.html): run `npm run build` and restart the service';

/**
 * The admin console: GET / and /console redirect to /console/ (index.html), which /console/invite also
 * serves (an invitation's link), /console/assets/<name>
 * serves the hashed files `npm run build` wrote, read once at start-up (`assets`; undefined when
 * never built, then 503 CONSOLE_NOT_BUILT). Hidden from the OpenAPI document: not part of the API.
 */
export default async function consoleRoutes(app: FastifyInstance, options: { assets: ConsoleAssets | undefined }): Promise<void> {
  const { assets } = options;

  sendPagePolicy(app, CONSOLE_CSP);

  const hidden = { schema: { hide: true } };
  // The pages a browser opens by address: their query is the browser's, not the API's (see anyQuery).
  const page = { ...hidden, config: { anyQuery: true } };

  app.get('/', page, async (_request, reply) => reply.redirect('/console/', 302));

  app.get('/console', page, async (request, reply) => reply.redirect(`/console/${queryOf(request)}`, 308));

  app.get('/console/', page, async (request, reply) => sendStaticFile(request, reply, built(assets).index, INDEX_CACHE));

  // An invitation's link (docs/administration.md): the same page, which reads the token from the fragment.
  app.get('/console/invite', page, async (request, reply) => sendStaticFile(request, reply, built(assets).index, INDEX_CACHE));

  app.get<{ Params: { name: string } }>('/console/assets/:name', hidden, async (request, reply) => {
    const file = built(assets).assets.get(request.params.name);
    if (file === undefined) throw new AppError('NOT_FOUND', `The console has no file ${request.params.name}; reload /console/`);
    return sendStaticFile(request, reply, file, ASSET_CACHE);
  });

  // Anything else under /console/ is the console's too: its 404 carries the same policy.
  app.get('/console/*', hidden, async (request) => {
    built(assets);
    throw new AppError('NOT_FOUND', `The console has no page ${request.url.split('?')[0]}`);
  });
}

function built(assets: ConsoleAssets | undefined): ConsoleAssets {
  if (assets === undefined) throw new AppError('CONSOLE_NOT_BUILT', NOT_BUILT_MESSAGE);
  return assets;
}

function queryOf(request: FastifyRequest): string {
  const at = request.url.indexOf('?');
  return at === -1 ? '' : request.url.slice(at);
}
