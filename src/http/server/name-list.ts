/** Names shown in a refusal: enough to find the typo, not a way to make the answer echo a long request. */
const SHOWN_NAMES = 10;
const SHOWN_NAME_LENGTH = 60;

/** "backup" or "a, b and 3 more", for a refusal that names what it did not understand. */
export function nameList(names: readonly string[]): string {
  const shown = names.slice(0, SHOWN_NAMES).map((name) => (name === '' ? '""' : name.slice(0, SHOWN_NAME_LENGTH)));
  const more = names.length > SHOWN_NAMES ? ` and ${names.length - SHOWN_NAMES} more` : '';
  return `${shown.join(', ')}${more}`;
}

export const plural = (word: string, count: number): string => (count === 1 ? word : `${word}s`);
