/** Types a browser may show inline; anything else downloads (stored-XSS defence). */
const INLINE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'text/plain',
  'audio/mpeg',
  'audio/ogg',
  'video/mp4',
  'video/webm',
]);

/**
 * The Content-Disposition of a download, the same whether the service serves the bytes or an
 * object store does through a presigned link: inline only for types that cannot run script.
 */
export function downloadDisposition(filename: string, contentType: string): string {
  const inline = INLINE_TYPES.has(contentType);
  const asciiName = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
