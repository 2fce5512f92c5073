import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseSiweMessage, SiweParseError } from '../../src/auth/siwe/siwe-message.ts';

const VECTORS = new URL('../fixtures/vectors/siwe/', import.meta.url);

/** The cases of one file of a vector set (`set`: its folder in fixtures/vectors/siwe/, '' for spruceid/siwe's), by name; a file of none fails. */
export function readVectors<T>(set: string, file: string): [string, T][] {
  const cases = Object.entries(JSON.parse(readFileSync(new URL(set + file, VECTORS), 'utf8')) as Record<string, T>);
  assert.ok(cases.length > 0, `${set}${file} holds no case`);
  return cases;
}

/** The SiweParseError that `text` gets; a message accepted fails the test. */
export function parseError(text: string): SiweParseError {
  try {
    parseSiweMessage(text);
  } catch (error) {
    assert.ok(error instanceof SiweParseError, `expected a SiweParseError, got ${String(error)}`);
    return error;
  }
  assert.fail('the message was accepted');
}
