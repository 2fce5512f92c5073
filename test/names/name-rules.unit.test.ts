import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hiddenCharacterRule, revealHiddenCharacters } from '../../src/names/hidden-characters.ts';
import { isStoredForm, spelledOut, storedForm } from '../../src/names/name-form.ts';

describe('hidden characters: refused in names, revealed in output', () => {
  const revealed: [string, string][] = [
    ['clear\u001b[2J', 'clear\\x1b[2J'],
    ['title\u001b]0;pwned\u0007', 'title\\x1b]0;pwned\\x07'],
    ['line\r\nfake', 'line\\x0d\\x0afake'],
    ['nul\u0000tab\t', 'nul\\x00tab\\x09'],
    ['del\u007f csi\u009b31m', 'del\\x7f csi\\x9b31m'],
    ['invoice\u202Egnp.exe', 'invoice\\u202egnp.exe'],
    ['zero\u200Bwidth \uFEFFbom \u00ADsoft', 'zero\\u200bwidth \\ufeffbom \\u00adsoft'],
    ['lone \uD800 surrogate', 'lone \\ud800 surrogate'],
    ['\u200Dedge joiner', '\\u200dedge joiner'],
    // The Tags block, beyond U+FFFF: 'hid' in tag characters and CANCEL TAG, LANGUAGE TAG, and U+E0000 and U+E0002 (unassigned).
    ['ok\u{E0068}\u{E0069}\u{E0064}\u{E007F}', 'ok\\u{e0068}\\u{e0069}\\u{e0064}\\u{e007f}'],
    ['lang\u{E0001} \u{E0000}\u{E0002}', 'lang\\u{e0001} \\u{e0000}\\u{e0002}'],
  ];
  for (const [text, shown] of revealed) {
    test(`${JSON.stringify(text)} is refused and shows as ${shown}`, () => {
      assert.notEqual(hiddenCharacterRule(text), undefined);
      assert.equal(revealHiddenCharacters(text), shown);
      assert.equal(hiddenCharacterRule(revealHiddenCharacters(text)), undefined, 'what is shown holds none');
    });
  }

  test('what the rule allows is shown as it is: letters of any script, emoji, joiners between visible characters', () => {
    for (const text of [
      'plain ascii',
      'Über café 東京 😀',
      '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645',
      '\u{1F469}\u200D\u{1F4BB}',
      'back\\slash',
    ]) {
      assert.equal(hiddenCharacterRule(text), undefined, text);
      assert.equal(revealHiddenCharacters(text), text);
    }
  });
});

describe('one spelling per name', () => {
  test('NFD and NFC spell one name; the stored form is NFC', () => {
    const nfd = 'cafe\u0301';
    assert.equal(storedForm(nfd), 'caf\u00e9');
    assert.equal(isStoredForm(nfd), false);
    assert.equal(isStoredForm('caf\u00e9'), true);
  });

  test('spelledOut tells look-alikes apart', () => {
    assert.equal(spelledOut('caf\u00e9.txt'), 'caf\\u00e9.txt');
    assert.equal(spelledOut('cafe\u0301.txt'), 'cafe\\u0301.txt');
    assert.equal(spelledOut('a\u{1F600}'), 'a\\u{1f600}');
  });
});
