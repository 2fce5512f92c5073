import { FORMAT_CHARACTERS, revealHiddenCharacters } from '../names/hidden-characters.ts';

declare const revealed: unique symbol;

/**
 * What a command prints for people: text whose every value went through revealHiddenCharacters.
 * A stored name may hold ESC, BEL, CR/LF or a bidi control (an older release stored them; names
 * refuse them now), and printed raw it would clear, recolour or retitle the operator's terminal,
 * or fake lines of output. The type lets only terminalText (and terminalLines) make such text, so
 * a command cannot print a value it forgot to reveal.
 */
export type TerminalText = string & { readonly [revealed]: true };

/**
 * The template's own text as written; each value, stored or not, with its hidden characters shown
 * as `\x1b`, `\u202e`. A value that is terminal text already comes out unchanged (it holds none).
 */
export function terminalText(template: TemplateStringsArray, ...values: unknown[]): TerminalText {
  let text = template[0]!;
  values.forEach((value, i) => {
    text += revealHiddenCharacters(String(value)) + template[i + 1]!;
  });
  return text as TerminalText;
}

/** Lines, each already terminal text, one under the other. */
export function terminalLines(lines: readonly TerminalText[]): TerminalText {
  return lines.join('\n') as TerminalText;
}

/**
 * Bytes someone will sign (`sign --print-message`), printed exactly: made by the CLI from options
 * the SIWE grammar checked, never stored, and changed by a single escape they would no longer verify.
 */
export function exactText(bytes: string): TerminalText {
  return bytes as TerminalText;
}

// JSON.stringify escapes C0 controls, quotes and lone surrogates, but not DEL, the C1 controls
// (U+009B is a terminal's CSI as much as ESC [ is), the format characters (bidi controls, the tag
// characters) or the line and paragraph separators: their \u escapes are the same JSON, and harmless to print.
const UNESCAPED_BY_JSON = new RegExp(String.raw`[\u007f-\u009f\u2028\u2029${FORMAT_CHARACTERS}]`, 'gu');

/** `value` as one line of JSON that a terminal shows as it is: the same JSON a parser reads. */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value).replace(UNESCAPED_BY_JSON, (character) =>
    // A format character beyond U+FFFF (the tag characters) is escaped as JSON spells it: both halves of its surrogate pair.
    [...Array(character.length).keys()].map((i) => `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}
