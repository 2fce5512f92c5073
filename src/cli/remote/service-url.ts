import { UsageError } from '../command.ts';

/** Hosts whose traffic never leaves this machine: plain http:// to them exposes no signed message. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * The service's origin from --url (or a profile). A signed message is a bearer credential for its
 * whole lifetime, so it goes over https:// only, or plain http:// to this machine.
 */
export function serviceOrigin(text: string, option: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--${option} must be the service's URL, such as https://admin.example.com (got "${text.slice(0, 200)}")`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`--${option} must be an https:// URL (got ${url.protocol}//…)`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new UsageError(
      `--${option} ${url.origin}: plain http:// would send signed messages readable on the way; use https://, or http:// only to this machine (localhost, 127.0.0.1, [::1])`,
    );
  }
  if (url.username !== '' || url.password !== '') throw new UsageError(`--${option} must hold no user name or password`);
  return url.origin;
}
