import type { SwaggerTransformObject } from '@fastify/swagger';

/*
 * The response headers the document declares, with the shape of their values, so that a client
 * (and the conformance test, test/http/openapi-document.unit.test.ts) can rely on more than a name.
 */

/**
 * Marks a header the answer always carries. @fastify/swagger puts all of a declared header under
 * its `schema`; requiredResponseHeaders (the document's last step) lifts the mark to the header's
 * own `required`, where OpenAPI has it.
 */
const ALWAYS_SENT = 'x-always-sent';

type HeaderShape = { type: 'string'; description: string; pattern?: string; enum?: string[]; [ALWAYS_SENT]?: true };

/** A response header: what it holds, the shape of its value, and whether every such answer carries it. */
export function responseHeader(description: string, shape: Pick<HeaderShape, 'pattern' | 'enum'>, always: boolean): HeaderShape {
  return { type: 'string', description, ...shape, ...(always ? { [ALWAYS_SENT]: true as const } : {}) };
}

/** A strong entity tag: the sha256 of the bytes, quoted. */
export const ENTITY_TAG = { pattern: '^"[0-9a-f]{64}"$' };
/** An IMF-fixdate (RFC 9110): Sun, 06 Nov 1994 08:49:37 GMT. */
export const HTTP_DATE = { pattern: '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT$' };
export const BYTE_COUNT = { pattern: '^(0|[1-9]\\d*)$' };
export const CONTENT_RANGE = { pattern: '^bytes \\d+-\\d+/\\d+$' };
/** A version id (ver_ and lowercase Crockford base32, as src/model/ids.ts makes them). */
export const VERSION_ID = { pattern: '^ver_[0-9a-hjkmnp-tv-z]+$' };

type Headers = Record<string, { schema?: Record<string, unknown>; required?: boolean }>;

/** Lifts each header's mark (see ALWAYS_SENT) out of its schema, as OpenAPI's `required: true`. */
export const requiredResponseHeaders: SwaggerTransformObject = (object) => {
  const document = 'openapiObject' in object ? object.openapiObject : object.swaggerObject;
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, { responses?: object }>>)) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values((operation?.responses ?? {}) as Record<string, { headers?: Headers }>)) {
        for (const header of Object.values(response.headers ?? {})) {
          if (header.schema?.[ALWAYS_SENT] !== true) continue;
          delete header.schema[ALWAYS_SENT];
          header.required = true;
        }
      }
    }
  }
  return document;
};
