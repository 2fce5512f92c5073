/**
 * One spelling per name. Unicode spells 'é' two ways: one code point (U+00E9, NFC, what Windows,
 * Linux and browsers send) or 'e' and a combining accent (U+0065 U+0301, NFD, what macOS hands
 * over). The two look the same everywhere, so two files named so would be two files no one can
 * tell apart. As Nextcloud and Git (core.precomposeUnicode) decide, every name is stored in NFC:
 * an upload of the NFD spelling is the NFC name, and replaces it.
 */
export function storedForm(name: string): string {
  return name.normalize('NFC');
}

/** Whether `name` is already in the form a name is stored in (an older release may have stored another). */
export function isStoredForm(name: string): boolean {
  return name === storedForm(name);
}

/**
 * The name with every character outside printable ASCII written as its code point (`\u00e9`,
 * `e\u0301`): what tells two names apart that look the same, in a refusal that names both.
 */
export function spelledOut(name: string): string {
  let spelled = '';
  for (const character of name) {
    const code = character.codePointAt(0)!;
    spelled +=
      code >= 0x20 && code < 0x7f ? character : code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return spelled;
}
