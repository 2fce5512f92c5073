/**
 * What a message about a setting may show of its value. Start-up errors land in terminals, CI logs
 * and support tickets, so a secret never appears in one: a setting that is a secret as a whole is
 * not echoed at all, and a URL keeps its scheme and host (so that the operator sees which URL) but
 * not its credentials.
 */

// FILE_URL_SECRET, METRICS_TOKEN, AWS_SECRET_ACCESS_KEY, and any future *_PASSWORD or *_API_KEY.
const SECRET_SETTING = /SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|PRIVATE_KEY|ACCESS_KEY|API_KEY|CREDENTIAL/i;
const HIDDEN = '***';

const SCHEME = /^[a-z][a-z0-9+.-]*:(\/\/)?/i;
// A URL inside a longer text (a driver's message): from its scheme to the next blank or quote.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>]*/gi;
// pg takes ?password=, ioredis ?password= too; tokens and keys travel in query strings as well.
const SECRET_QUERY_VALUE = /([?&;][^=&#\s]*(?:pass|pwd|secret|token|key|auth|credential|signature)[^=&#\s]*=)[^&#\s]*/gi;
// libpq's key=value connection strings (`host=db user=app password=S3cret`, a value may be quoted:
// `password='a b'`), and the same keys wherever else a text names them. The key must start a word,
// so that `sslpassword`-like keys of other meaning are not taken for it, nor it for them.
const SECRET_KEY_VALUE = /(\b(?:password|passwd|pass|pwd)\s*=\s*)('(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?|[^\s&;,'"]*)/gi;
// `user:password@host` without a scheme (a URL missing its `postgres://`, a driver quoting its target).
const USER_INFO_IN_TEXT = /(^|[\s"'`(<=])[^\s"'`()<>=/@:]*:(?!\/\/)[^\s"'`<>@]*@(?=[^\s@])/g;

function isSecretSetting(name: string): boolean {
  return SECRET_SETTING.test(name);
}

/** A text without the values of password keys (key=value forms, libpq's among them). */
function redactKeyValues(text: string): string {
  return text.replace(SECRET_KEY_VALUE, `$1${HIDDEN}`);
}

/**
 * A URL, parsable or not, without its user information and without the values of query parameters
 * named like secrets. Everything up to the last '@' is user information: a password may hold an
 * unescaped '/' or '@' that ends the authority early for a parser (and then the URL does not
 * parse), so the parser's idea of the host is not relied on. A '@' later in a path or query hides
 * more than needed, which in an error message is the safe side. What is not a URL at all (libpq's
 * `host=db password=…`) loses its password values too.
 */
export function redactUrl(url: string): string {
  const scheme = SCHEME.exec(url)?.[0] ?? '';
  const rest = url.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  const hostOn = at === -1 ? rest : `${HIDDEN}@${rest.slice(at + 1)}`;
  return redactKeyValues(scheme + hostOn.replace(SECRET_QUERY_VALUE, `$1${HIDDEN}`));
}

/**
 * A text (an error's message) without the credentials it may quote: every URL in it passed through
 * redactUrl, and anywhere else a `password=` (or `passwd=`, `pass=`, `pwd=`) value and the user
 * information of a `user:password@host` without a scheme.
 */
export function redactCredentialsIn(text: string): string {
  return redactKeyValues(text.replace(URL_IN_TEXT, redactUrl).replace(USER_INFO_IN_TEXT, `$1${HIDDEN}@`));
}

/** A setting's value as a message about it may quote it: a secret not at all, anything else without credentials. */
export function shownValue(name: string, value: string): string {
  return isSecretSetting(name) ? '(value hidden: it is a secret)' : JSON.stringify(redactCredentialsIn(redactUrl(value)));
}
