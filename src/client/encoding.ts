/**
 * Byte helpers that run alike in browsers and Node: TextEncoder and btoa are globals of both,
 * whereas Buffer exists only in Node (the client must not pull a Buffer polyfill into a page).
 */

const utf8 = new TextEncoder();

/** Standard padded base64 of the UTF-8 bytes of `text`. */
export function base64OfUtf8(text: string): string {
  let binary = '';
  // btoa takes one char per byte; chunks keep String.fromCharCode's argument list short.
  const bytes = utf8.encode(text);
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** `0x` + lowercase hex of the UTF-8 bytes of `text`: how EIP-1193 `personal_sign` takes a message. */
export function hexOfUtf8(text: string): `0x${string}` {
  let hex = '0x';
  for (const byte of utf8.encode(text)) hex += byte.toString(16).padStart(2, '0');
  return hex as `0x${string}`;
}

/** `X-MES` for a message with newlines (every SIWE message): the service's `base64:` form. */
export function messageHeader(message: string): string {
  return `base64:${base64OfUtf8(message)}`;
}

/**
 * A name or id as one segment of a request's path: in NFC, the form the service stores names in
 * ('e\u0301' typed on macOS is the 'é' it stores), percent-encoded. `.` and `..` are refused with
 * a TypeError before anything is sent: a URL reads them as dot segments (percent-encoded too), so
 * a file named `..` would turn its restore into its folder's. The service refuses such names anyway.
 */
export function pathSegment(name: string): string {
  const form = name.normalize('NFC');
  if (form === '.' || form === '..')
    throw new TypeError(`"${form}" cannot name anything in a request's path: a URL reads it as a dot segment`);
  return encodeURIComponent(form);
}
