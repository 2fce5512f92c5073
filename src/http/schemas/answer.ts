import type { Static, TSchema } from 'typebox';

/**
 * A JSON answer as the OpenAPI document shows it: what it is, and one real example, typed by the
 * schema so that it cannot drift from it. @fastify/swagger moves a lone `examples` entry to the
 * media type's `example`, which Swagger UI shows instead of one made up from the schema.
 */
export function jsonAnswer<T extends TSchema>(schema: T, description: string, example: Static<T>): T {
  return { ...schema, description, examples: [example] };
}

/** Every list's answer: one page of items, and where the next begins. */
export const PAGE = 'A page of items; next is the cursor of the next page (pass it as ?cursor=), null on the last';
