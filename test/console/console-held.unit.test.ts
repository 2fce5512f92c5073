import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { heldAware, ProposalHeld } from '../../src/console/transport/held.ts';

const proposal = {
  id: 'prp_1',
  status: 'pending',
  required: 2,
  approvalsCounted: 0,
  typedData: { domain: {}, types: {}, primaryType: 'Intent', message: {} },
};

const answering =
  (status: number, body: unknown): typeof fetch =>
  async () =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe("the console's transport and held requests", () => {
  test('a 202 answering a proposal is thrown as ProposalHeld: no view takes it for done', async () => {
    const send = heldAware(answering(202, proposal));
    await assert.rejects(send('http://x/api/channels/main/restore'), (error: unknown) => {
      assert.ok(error instanceof ProposalHeld);
      assert.equal(error.proposal.id, 'prp_1');
      assert.equal(error.message, 'Needs approval: proposal prp_1 (0 of 2 needed)');
      return true;
    });
  });

  test('any other answer goes to the client as it came, a 202 without a proposal too', async () => {
    const done = await heldAware(answering(200, { ok: true }))('http://x/');
    assert.deepEqual(await done.json(), { ok: true });
    const accepted = await heldAware(answering(202, { queued: true }))('http://x/');
    assert.equal(accepted.status, 202);
    assert.deepEqual(await accepted.json(), { queued: true });
  });
});
