import { type SerializerFactory, SerializerSelector } from '@fastify/fast-json-stringify-compiler';

/**
 * Compiled validators and serializers, kept for the life of the process and shared by every app
 * it builds. A schema compiles to the same function whichever app asks: Ajv and
 * fast-json-stringify spend about 0.3 s of CPU on this API's schemas per app, which a service
 * (one app) pays once either way, and a process that builds hundreds of apps (the tests, each
 * with a service of its own) paid every time. Keyed by the schema's JSON (Fastify hands each app
 * its own copies), so only identical schemas share a function; the entries are bounded by the
 * schemas the code declares.
 */
const compiled = new Map<string, unknown>();

export function compiledOnce<F>(key: string, compile: () => F): F {
  let found = compiled.get(key) as F | undefined;
  if (found === undefined) {
    found = compile();
    compiled.set(key, found);
  }
  return found;
}

const fastJsonStringify = SerializerSelector();

/**
 * Fastify's own response serializers (fast-json-stringify, with the schemas added by addSchema
 * such as Problem), compiled once per process: the `schemaController.compilersFactory.buildSerializer`
 * of the app. The shared schemas and options are part of the key.
 */
export const buildSharedSerializer: SerializerFactory = (externalSchemas, serializerOpts) => {
  const compile = fastJsonStringify(externalSchemas, serializerOpts);
  const context = JSON.stringify([externalSchemas ?? null, serializerOpts ?? null]);
  return (route) => compiledOnce(`serializer ${context} ${JSON.stringify(route.schema)}`, () => compile(route));
};
