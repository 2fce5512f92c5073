import { pasteSignInPlugin } from './paste-sign-in.ts';

/*
 * The API reference page's start-up (/api/docs/assets/start.js): Swagger UI over this service's
 * OpenAPI document. A file of its own, as the page's Content-Security-Policy allows no inline
 * script; built by npm run build (scripts/bundles.mjs) into dist/api-reference/.
 */

declare global {
  interface Window {
    /** From swagger-ui-bundle.js, which the page loads first. */
    SwaggerUIBundle: (options: object) => unknown;
    ui: unknown;
  }
}

window.addEventListener('load', () => {
  window.ui = window.SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    // Swagger UI would send the document to an online validator: nothing leaves this origin.
    validatorUrl: null,
    plugins: [pasteSignInPlugin],
  });
});
