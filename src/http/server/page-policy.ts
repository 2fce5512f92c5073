import type { FastifyInstance } from 'fastify';

/** What one page needs beyond the strict policy. */
export interface PagePolicyOptions {
  /** style-src 'unsafe-inline': for a page whose scripts set style attributes. */
  inlineStyles?: boolean;
  /** img-src blob: images the page makes from bytes it holds. */
  blobImages?: boolean;
}

/**
 * The Content-Security-Policy of a page this service serves: it may load only its own files and
 * talk only to this origin; no inline script, no plugin, no framing, no <base> trick.
 */
export function pagePolicy(options: PagePolicyOptions = {}): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    options.inlineStyles ? "style-src 'self' 'unsafe-inline'" : "style-src 'self'",
    options.blobImages ? "img-src 'self' data: blob:" : "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Sends `policy` with every answer of the plugin's own scope, errors included, and so with no API route. */
export function sendPagePolicy(app: FastifyInstance, policy: string): void {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('Content-Security-Policy', policy);
    done();
  });
}
