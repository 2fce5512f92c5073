/*
 * What `wallet-admin sign` prints, read back: the three headers a wallet signs in with, from its
 * text ("X-WAL: 0x…" lines), its --json object, or a curl command line holding them (-H 'X-WAL: …').
 * Pure, so that Node tests it as the API reference page runs it.
 */

export const SIGN_IN_HEADERS = ['X-WAL', 'X-SIG', 'X-MES'] as const;
export type SignInHeaderName = (typeof SIGN_IN_HEADERS)[number];
export type SignInHeaderValues = Record<SignInHeaderName, string>;

export type PastedHeaders = { ok: true; headers: SignInHeaderValues } | { ok: false; problem: string };

const SHAPES: Record<SignInHeaderName, { pattern: RegExp; what: string }> = {
  'X-WAL': { pattern: /^0x[0-9a-fA-F]{40}$/, what: '0x and 40 hex digits' },
  'X-SIG': { pattern: /^0x[0-9a-fA-F]{130}$/, what: '0x and 130 hex digits' },
  // Any header-safe text: "base64:…" for every SIWE message, as is for a plain one.
  'X-MES': { pattern: /^[\x20-\x7e]+$/, what: 'printable ASCII on one line' },
};

/** `Name: value` on a line of its own, or in a curl -H argument; the value is the rest of it. */
const HEADER_LINE = /^\s*(?:-H\s+)?(['"]?)(X-WAL|X-SIG|X-MES|X-Wallet-Address)\s*:\s*(.*?)\1\s*\\?\s*$/i;

export function parsePastedHeaders(text: string): PastedHeaders {
  const found = fromJson(text) ?? fromLines(text);
  const missing = SIGN_IN_HEADERS.filter((name) => !found.has(name));
  if (missing.length > 0) {
    return {
      ok: false,
      problem: `No ${missing.join(', ')} in what was pasted: paste all that wallet-admin sign printed (its X-WAL, X-SIG and X-MES lines)`,
    };
  }
  for (const name of SIGN_IN_HEADERS) {
    const value = found.get(name)!;
    if (!SHAPES[name].pattern.test(value)) {
      return { ok: false, problem: `${name} must be ${SHAPES[name].what}; the pasted one is "${value.slice(0, 24)}…"` };
    }
  }
  return { ok: true, headers: { 'X-WAL': found.get('X-WAL')!, 'X-SIG': found.get('X-SIG')!, 'X-MES': found.get('X-MES')! } };
}

/** The --json output: one object with the headers as members. */
function fromJson(text: string): Map<string, string> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const found = new Map<string, string>();
  for (const [name, value] of Object.entries(parsed)) {
    const known = SIGN_IN_HEADERS.find((header) => header.toLowerCase() === name.toLowerCase());
    if (known !== undefined && typeof value === 'string') found.set(known, value);
  }
  return found;
}

function fromLines(text: string): Map<string, string> {
  const found = new Map<string, string>();
  // A curl command pasted on one line holds several -H arguments: each starts a line of its own.
  for (const line of text.replace(/\s-H\s+/g, '\n-H ').split(/\r?\n/)) {
    const match = HEADER_LINE.exec(line);
    const known = SIGN_IN_HEADERS.find((header) => header.toLowerCase() === match?.[2]?.toLowerCase());
    if (known !== undefined) found.set(known, match![3]!.trim());
  }
  return found;
}
