import assert from 'node:assert/strict';
import { test } from 'node:test';
import { terminalJson, terminalLines, terminalText } from '../../src/cli/terminal-text.ts';

test('terminalText reveals what its values hide, never its own text, and nests', () => {
  const name = 'ok\r\nchn_fake  t_fake  fake\u001b[31m';
  const line = terminalText`chn_1  t_1  ${name}`;
  assert.equal(line, 'chn_1  t_1  ok\\x0d\\x0achn_fake  t_fake  fake\\x1b[31m');
  assert.equal(terminalText`Admin ${line}`, `Admin ${line}`, 'terminal text is shown as it is');
  assert.equal(terminalLines([line, terminalText`second`]).split('\n').length, 2);
});

test('terminalJson is the same JSON, with what JSON.stringify leaves raw escaped', () => {
  const value = { name: 'del\u007f csi\u009b31m \u202Egnp \u2028 tag\u{E0041} ESC\u001b' };
  const printed = terminalJson(value);
  assert.deepEqual(JSON.parse(printed), value);
  assert.equal(/[\p{Cc}\p{Cf}\u2028]/u.test(printed), false, printed);
  assert.ok(printed.includes('\\u009b') && printed.includes('\\u202e') && printed.includes('\\udb40\\udc41'), printed);
});

test('terminalText writes out the tag characters (U+E0000–E007F) as it does the other format characters, and keeps emoji', () => {
  // 'ok', then 'hid' in tag characters, invisible on a terminal: a name that reads as another.
  const name = 'ok\u{E0068}\u{E0069}\u{E0064}\u{E007F} \u{E0000}';
  const line = terminalText`chn_1  ${name}  ${'\u202E'} ${'😀'}`;
  assert.equal(line, 'chn_1  ok\\u{e0068}\\u{e0069}\\u{e0064}\\u{e007f} \\u{e0000}  \\u202e 😀');
  assert.equal(terminalText`${line}`, line, 'what is written out holds none');
  const printed = terminalJson({ name });
  assert.deepEqual(JSON.parse(printed), { name });
  assert.ok(printed.includes('\\udb40\\udc68') && printed.includes('\\udb40\\udc00'), printed);
});
