import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { compiledOnce } from './compiled-schemas.ts';

// ajv-formats is CommonJS, typed as an ES module: under Node its default import is the function itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const SHARED: Options = { useDefaults: true, allErrors: false, addUsedSchema: false };

/**
 * A JSON body is checked exactly as its schema declares it: no coercion (`"displayName": 123` is not
 * "123", `"legalHold": "true"` or `1` is no boolean, `["x"]` is no string), and a member its
 * schema does not declare, at any depth, is refused rather than dropped (a policy rule's unknown
 * `"channel"` would otherwise leave a rule for the whole tenant). Fastify's one validator coerces
 * and strips for every part of a request, so the body gets a validator of its own.
 */
const BODY: Options = { ...SHARED, coerceTypes: false, removeAdditional: false };

/**
 * Query strings, path parameters and headers are text: Fastify's own settings, which read `limit=10`
 * as a number and `?status=a` as a list where one is declared, and which the documented parsing of
 * every query parameter rests on (unknown ones are refused by query-parameters.ts).
 */
const TEXT_PARTS: Options = { ...SHARED, coerceTypes: 'array', removeAdditional: true };

/** Keywords that check nothing: what a member of a headers schema may hold and still accept any string. */
const ANNOTATIONS = new Set(['type', 'description', 'title', 'examples', 'deprecated']);

/**
 * A headers schema that no request can fail: an object whose members are all optional strings
 * with nothing more to check. Node gives every header but Set-Cookie as one string (repeated ones
 * joined), so such a schema only documents its headers (X-Wallet-Address on GET /api/auth/test):
 * Ajv's validator for it would cost every request and could refuse none.
 */
function acceptsAnyHeaders(schema: unknown): boolean {
  const { type, properties, required, ...rest } = schema as { type?: unknown; properties?: unknown; required?: unknown };
  if (type !== 'object' || required !== undefined || Object.keys(rest).some((keyword) => !ANNOTATIONS.has(keyword))) return false;
  return Object.values((properties ?? {}) as Record<string, Record<string, unknown>>).every(
    (member) => member.type === 'string' && Object.keys(member).every((keyword) => ANNOTATIONS.has(keyword)),
  );
}

const ACCEPTED = () => true;

// One of each per process: what they compile is shared by every app (compiled-schemas.ts).
const body = addFormats(new Ajv(BODY));
const text = addFormats(new Ajv(TEXT_PARTS));

async function requestValidation(app: FastifyInstance): Promise<void> {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'headers' && acceptsAnyHeaders(schema)) return ACCEPTED;
    const ajv = httpPart === 'body' ? body : text;
    return compiledOnce(`${ajv === body ? 'body' : 'text'} validator ${JSON.stringify(schema)}`, () => ajv.compile(schema));
  });
}

export default fp(requestValidation, { name: 'request-validation' });
