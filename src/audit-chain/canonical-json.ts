/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): the one byte string a JSON value hashes as, whoever
 * writes it. Pure and dependency-free so that the CLI's verifier and the browser console use the
 * very function the service hashes with.
 *
 * - Numbers are written as ECMAScript's Number.prototype.toString writes them (RFC 8785 §3.2.2.3),
 *   which is what JSON.stringify does for a finite number (-0 included, written "0").
 * - Strings are escaped as JSON.stringify escapes them (§3.2.2.2: \b \t \n \f \r \" \\, other
 *   controls as \u00xx lower case, everything else as itself).
 * - Object members are sorted by their names' UTF-16 code units (§3.2.3), which is what a plain
 *   Array.prototype.sort of strings compares.
 *
 * What is not I-JSON (RFC 7493) is refused rather than guessed at: NaN, Infinity, a bigint, a
 * string with a lone surrogate. A member whose value is undefined is left out, as JSON.stringify
 * leaves it out, so that an object hashes as it serialises.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

export class CanonicalJsonError extends Error {}

function write(value: unknown, out: string[]): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`${value} is not a JSON number`);
      out.push(JSON.stringify(value));
      return;
    case 'string':
      out.push(quoted(value));
      return;
    case 'object':
      if (Array.isArray(value)) {
        out.push('[');
        value.forEach((item, i) => {
          if (i > 0) out.push(',');
          if (item === undefined) throw new CanonicalJsonError('An array holds undefined, which JSON has no value for');
          write(item, out);
        });
        out.push(']');
        return;
      }
      writeObject(value as Record<string, unknown>, out);
      return;
    default:
      throw new CanonicalJsonError(`A ${typeof value} is not a JSON value`);
  }
}

function writeObject(object: Record<string, unknown>, out: string[]): void {
  const names = Object.keys(object)
    .filter((name) => object[name] !== undefined)
    .sort();
  out.push('{');
  names.forEach((name, i) => {
    if (i > 0) out.push(',');
    out.push(quoted(name), ':');
    write(object[name], out);
  });
  out.push('}');
}

function quoted(text: string): string {
  // With the u flag a surrogate pair is one code point: only a lone surrogate is of category Cs.
  if (/\p{Cs}/u.test(text)) throw new CanonicalJsonError('A string holds a lone surrogate, which I-JSON does not allow');
  return JSON.stringify(text);
}
