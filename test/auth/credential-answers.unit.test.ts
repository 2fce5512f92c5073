import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AnswerSlot, CredentialAnswers } from '../../src/auth/credential-answers.ts';
import type { Principal } from '../../src/auth/principal.ts';

const principal = (id: string) => ({ id }) as unknown as Principal;
const slot = (): AnswerSlot => ({ answer: undefined });

describe('the answers kept on cached credentials', () => {
  test('an answer is found only for the same principal object and the same X-Wallet-Address', () => {
    const answers = new CredentialAnswers(10);
    const owner = principal('adm_1');
    const credential = slot();
    answers.set(credential, { principal: owner, walletAddress: undefined, body: 'A' });
    assert.equal(answers.get(credential, owner, undefined), 'A');
    assert.equal(answers.get(credential, owner, '0xabc'), undefined, 'another X-Wallet-Address');
    assert.equal(answers.get(credential, principal('adm_1'), undefined), undefined, 'the record changed: a new Principal');
    assert.equal(answers.get(slot(), owner, undefined), undefined, 'another credential');
    assert.equal(answers.get(undefined, owner, undefined), undefined, 'a new credential');
  });

  test('at most `max` answers are kept: the one kept longest is dropped first, a replaced one keeps its place', () => {
    const answers = new CredentialAnswers(2);
    const owner = principal('adm_1');
    const [a, b, c] = [slot(), slot(), slot()];
    answers.set(a, { principal: owner, walletAddress: undefined, body: 'a' });
    answers.set(b, { principal: owner, walletAddress: undefined, body: 'b' });
    answers.set(a, { principal: owner, walletAddress: '0xabc', body: 'a2' });
    assert.equal(answers.get(a, owner, '0xabc'), 'a2');
    answers.set(c, { principal: owner, walletAddress: undefined, body: 'c' });
    assert.equal(a.answer, undefined);
    assert.equal(answers.get(b, owner, undefined), 'b');
    assert.equal(answers.get(c, owner, undefined), 'c');
  });

  test('with no room, nothing is kept', () => {
    const answers = new CredentialAnswers(0);
    const credential = slot();
    answers.set(credential, { principal: principal('adm_1'), walletAddress: undefined, body: 'A' });
    assert.equal(credential.answer, undefined);
  });
});
