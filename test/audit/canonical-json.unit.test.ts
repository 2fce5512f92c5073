import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CanonicalJsonError, canonicalJson } from '../../src/audit-chain/canonical-json.ts';

/**
 * RFC 8785 (JSON Canonicalization Scheme)'s own examples, copied from the RFC's text
 * (https://www.rfc-editor.org/rfc/rfc8785): §3.2.2 (the sample with its numbers, string escapes and
 * literals), §3.2.3 (member sorting by UTF-16 code units) and Appendix B (IEEE 754 doubles as hex
 * bits, and what ECMAScript writes for each).
 */
describe('canonical JSON (RFC 8785)', () => {
  test('§3.2.2: numbers, string escaping and literals of the sample', () => {
    // The RFC's input, as JSON text; JSON.parse reads its numbers as doubles exactly as the RFC means.
    const input =
      '{\n  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n' +
      '  "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n  "literals": [null, true, false]\n}';
    assert.equal(
      canonicalJson(JSON.parse(input)),
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  test('§3.2.3: members sorted by UTF-16 code units, not by code points or by locale', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // The RFC's expected order; read from the text, since a JS object lists the integer-like "1" first whatever.
    assert.equal(
      canonicalJson(input),
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign",' +
        '"😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  test('Appendix B: every double of the table written as ECMAScript writes it', () => {
    const vectors: [string, string][] = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [bits, written] of vectors) {
      const view = new DataView(new ArrayBuffer(8));
      view.setBigUint64(0, BigInt(`0x${bits}`));
      assert.equal(canonicalJson(view.getFloat64(0)), written, bits);
    }
  });

  test('Appendix B: NaN and Infinity are no JSON numbers; nor is a bigint, nor a lone surrogate I-JSON', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 1n, 'a\ud800b', ['x', undefined]]) {
      assert.throws(() => canonicalJson(bad), CanonicalJsonError, String(bad));
    }
    // A surrogate pair is one character, and fine.
    assert.equal(canonicalJson('\ud83d\ude00'), '"😀"');
  });

  test('nested objects are sorted at every level, arrays keep their order, undefined members are left out as JSON.stringify leaves them', () => {
    assert.equal(canonicalJson({ b: [3, { z: 1, a: null }], a: { d: undefined, c: 'x' } }), '{"a":{"c":"x"},"b":[3,{"a":null,"z":1}]}');
  });
});
