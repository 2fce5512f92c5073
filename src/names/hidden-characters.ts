/**
 * Characters that change how a name is shown without showing themselves. Every name the service
 * stores (file, folder, channel, tenant, admin) refuses them, and the CLI escapes them visibly in
 * whatever an older release stored before that rule: one list for both, so what is refused and
 * what is escaped can never drift apart.
 */

// \p{Cc} is C0, DEL and C1: ESC (U+001B) and CSI (U+009B) start terminal sequences that clear,
// recolour or retitle a terminal; BEL rings it; CR and LF fake lines of output.
const CONTROL_CHARACTER = /\p{Cc}/u;
const LONE_SURROGATE = /\p{Cs}/u;
// \p{Cf}, the invisible format characters: the bidi controls (U+202A–202E, U+2066–2069,
// U+200E/200F, U+061C) reorder a name, so 'invoice\u202Egnp.exe' displays as 'invoiceexe.png';
// others (U+00AD soft hyphen, U+200B zero width space, U+2060 word joiner, U+FEFF BOM, the tag
// characters) make two names that look the same. The zero-width non-joiner and joiner (U+200C,
// U+200D) between two visible characters are the exception: Persian and Urdu words need the
// non-joiner ('می‌خواهم'), Indic scripts both (conjunct forms), and emoji sequences the joiner
// ('👩‍💻'). Between visible characters neither reorders anything; at an edge of the name or next
// to a dot, a space or another format character they would only hide.
// The Tags block (U+E0000–E007F) is invisible whole: its assigned code points are \p{Cf}, the
// unassigned rest (U+E0000, U+E0002–E001F) would hide as they do, so the block goes with them.
export const FORMAT_CHARACTERS = String.raw`\p{Cf}\u{E0000}-\u{E007F}`;
const FORMAT_CHARACTER = new RegExp(`[${FORMAT_CHARACTERS}]`, 'u');
const VISIBLE = String.raw`[\p{L}\p{M}\p{N}\p{S}]`;
const JOINER_BETWEEN_VISIBLE = new RegExp(String.raw`(?<=${VISIBLE})[\u200C\u200D](?=${VISIBLE})`, 'gu');

/**
 * What `value` breaks of the rule, as the end of a sentence naming it ("must not contain …"), or
 * undefined when it holds none of these characters.
 */
export function hiddenCharacterRule(value: string): string | undefined {
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode (it contains a lone surrogate)';
  if (CONTROL_CHARACTER.test(value)) return 'must not contain control characters (U+0000–U+001F, U+007F–U+009F)';
  if (FORMAT_CHARACTER.test(value.replace(JOINER_BETWEEN_VISIBLE, '')))
    return 'must not contain format characters such as U+202E (right-to-left override) or U+200B (zero width space); a zero-width joiner or non-joiner only between two letters, digits or symbols';
  return undefined;
}

// One character at a time: a surrogate pair is one visible character, a lone surrogate is not.
const ANY_CHARACTER = /[\uD800-\uDBFF][\uDC00-\uDFFF]|[\s\S]/g;

/**
 * `text` with every character the rule refuses written out instead: C0, DEL and C1 as `\x1b`,
 * format characters and lone surrogates as `\u202e`, a format character beyond U+FFFF (the tag
 * characters) as `\u{e0041}`. What an older release stored then shows on a terminal as what it
 * is, and can no longer move the cursor, recolour, retitle, fake a line or hide text.
 * Joiners between visible characters stay, as the rule lets them.
 */
export function revealHiddenCharacters(text: string): string {
  if (hiddenCharacterRule(text) === undefined) return text;
  return text.replace(ANY_CHARACTER, (character, offset: number) => {
    // A surrogate pair is one character: an emoji stays, a tag character is written out whole.
    if (character.length === 2) return FORMAT_CHARACTER.test(character) ? `\\u{${character.codePointAt(0)!.toString(16)}}` : character;
    const code = character.charCodeAt(0);
    if (CONTROL_CHARACTER.test(character)) return `\\x${code.toString(16).padStart(2, '0')}`;
    if (LONE_SURROGATE.test(character)) return `\\u${code.toString(16).padStart(4, '0')}`;
    if (!FORMAT_CHARACTER.test(character)) return character;
    const joinerKept = (code === 0x200c || code === 0x200d) && between(text, offset);
    return joinerKept ? character : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

const VISIBLE_BEFORE = new RegExp(`${VISIBLE}$`, 'u');
const VISIBLE_AFTER = new RegExp(`^${VISIBLE}`, 'u');

function between(text: string, offset: number): boolean {
  return VISIBLE_BEFORE.test(text.slice(Math.max(0, offset - 2), offset)) && VISIBLE_AFTER.test(text.slice(offset + 1, offset + 3));
}
