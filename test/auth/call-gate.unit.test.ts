import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CallGate, GateRefusal } from '../../src/auth/rpc/call-gate.ts';

const FAR = () => Date.now() + 60_000;

/** Whether `promise` has settled by the time already-queued work has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

async function refusalOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof GateRefusal, String(error));
    return error.reason;
  }
  return assert.fail('the call was let through');
}

describe('CallGate (the bound on RPC calls in flight)', () => {
  test('lets maxInFlight calls through, queues maxWaiting more in order, refuses the rest at once', async () => {
    const gate = new CallGate(2, 2);
    const first = await gate.enter(FAR());
    const second = await gate.enter(FAR());
    const third = gate.enter(FAR());
    const fourth = gate.enter(FAR());
    assert.equal(await refusalOf(gate.enter(FAR())), 'busy');
    assert.equal(await settled(third), false, 'the third waits while two are in flight');

    first();
    first(); // a second release of the same call frees nothing more
    assert.equal(await settled(third), true, 'the first leaving lets the third in');
    assert.equal(await settled(fourth), false, 'and only the third');
    second();
    const releaseFourth = await fourth;
    // Two in flight again (third, fourth) and nobody waiting: two more may wait, a third may not.
    const fifth = gate.enter(FAR());
    const sixth = gate.enter(FAR());
    assert.equal(await refusalOf(gate.enter(FAR())), 'busy');
    (await third)();
    releaseFourth();
    (await fifth)();
    (await sixth)();
    // All released: the gate is empty and admits two at once again.
    await gate.enter(FAR());
    await gate.enter(FAR());
  });

  test('a call whose deadline passes while it waits is refused, and leaves its place to the next', async () => {
    const gate = new CallGate(1, 2);
    const running = await gate.enter(FAR());
    const doomed = gate.enter(Date.now() + 20);
    const patient = gate.enter(FAR());
    assert.equal(await refusalOf(doomed), 'timeout');
    running();
    assert.equal(await settled(patient), true);
    // The refused waiter holds no place: one more may wait behind the patient one's call.
    const next = gate.enter(FAR());
    const another = gate.enter(FAR());
    assert.equal(await refusalOf(gate.enter(FAR())), 'busy');
    (await patient)();
    (await next)();
    (await another)();
  });
});
