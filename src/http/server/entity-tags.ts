/** If-None-Match holds a list of entity tags (weak ones compare equal for GET, RFC 9110 §13.1.2) or '*'. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}
