import { SIGN_IN_HEADERS, type SignInHeaderName, type SignInHeaderValues } from './signed-headers.ts';

/*
 * The little of Swagger UI's plugin system the API reference's plugins use (its own types are not
 * published), and the one thing both of its sign-in boxes do: authorize the three wallet schemes.
 */

export interface SecurityScheme {
  type?: string;
  in?: string;
  name?: string;
}
export interface ImmutableMap<V> {
  toJS(): Record<string, V>;
  some(predicate: (value: { get(key: string): unknown }) => boolean): boolean;
}
export type Element = object;
export type Component<P> = (props: P) => Element | null;
export interface React {
  createElement(type: string | Component<never>, props?: object | null, ...children: (Element | string | null | false)[]): Element;
  useState<S>(initial: S): [S, (next: S) => void];
  useEffect(effect: () => undefined | (() => void), deps: readonly unknown[]): void;
}
export interface SwaggerSystem {
  React: React;
  specSelectors: { securityDefinitions(): ImmutableMap<SecurityScheme> | undefined };
  authActions: {
    authorize(payload: Record<string, { name: string; schema: SecurityScheme; value: string }>): void;
    showDefinitions(shown: boolean): void;
  };
}

/** The scheme (by its name in the document) that sends each header. */
function schemesByHeader(system: SwaggerSystem): Map<SignInHeaderName, [string, SecurityScheme]> {
  const schemes = Object.entries(system.specSelectors.securityDefinitions()?.toJS() ?? {});
  const found = new Map<SignInHeaderName, [string, SecurityScheme]>();
  for (const header of SIGN_IN_HEADERS) {
    const scheme = schemes.find(([, value]) => value.type === 'apiKey' && value.in === 'header' && value.name === header);
    if (scheme !== undefined) found.set(header, scheme);
  }
  return found;
}

/** Authorizes X-WAL, X-SIG and X-MES at once, then closes the Authorize dialog. */
export function authorizeSignedHeaders(system: SwaggerSystem, headers: SignInHeaderValues): void {
  const payload: Parameters<SwaggerSystem['authActions']['authorize']>[0] = {};
  for (const [header, [name, schema]] of schemesByHeader(system)) payload[name] = { name, schema, value: headers[header] };
  system.authActions.authorize(payload);
  system.authActions.showDefinitions(false);
}
