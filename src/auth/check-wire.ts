import type { ErrorCode } from '../errors/app-error.ts';
import type { MessageCheck, MessageCheckInput } from './message-check.ts';

/**
 * The batches between the VerificationPool and its workers, each one string: postMessage copies a
 * string at about half the cost of the same jobs as objects (whose keys are written and read again
 * on every copy), and the hand-off, both ways, was a large share of a new sign-in's CPU time
 * (bench: auth-cold, profile of the worker and the event loop). Jobs are their fields joined by
 * NUL, which no header value holds (encodeJobs refuses a batch where one does: its jobs are then
 * checked on the event loop); answers are JSON.
 */

/** The slots of one job: id, wal, sig, mes, now, contractWallets (1 or 0). */
const JOB_SLOTS = 6;
/** The slots of one answer: ok (1) then kind, chainId, nonce, signedBy, validUntil, messageHash, signer; or 0, code, message. */
const ANSWER_SLOTS = 8;

const SEPARATOR = '\0';

/** A batch's wire form, or undefined when a field holds the separator (only a caller other than HTTP could send one). */
export function encodeJobs(jobs: readonly { id: number; input: MessageCheckInput }[]): string | undefined {
  const fields: (string | number)[] = new Array(jobs.length * JOB_SLOTS);
  let i = 0;
  for (const { id, input } of jobs) {
    if (input.wal.includes(SEPARATOR) || input.sig.includes(SEPARATOR) || input.mes.includes(SEPARATOR)) return undefined;
    fields[i++] = id;
    fields[i++] = input.wal;
    fields[i++] = input.sig;
    fields[i++] = input.mes;
    fields[i++] = input.now;
    fields[i++] = input.contractWallets ? 1 : 0;
  }
  return fields.join(SEPARATOR);
}

/** Runs `check` on each job of a batch and gives the answers' wire form, in the jobs' order. */
export function answerJobs(batch: string, check: (input: MessageCheckInput) => MessageCheck): string {
  const wire = batch.split(SEPARATOR);
  const answers: (string | number | undefined)[] = new Array((wire.length / JOB_SLOTS) * (ANSWER_SLOTS + 1));
  let out = 0;
  for (let i = 0; i < wire.length; i += JOB_SLOTS) {
    const result = check({
      wal: wire[i + 1]!,
      sig: wire[i + 2]!,
      mes: wire[i + 3]!,
      now: Number(wire[i + 4]),
      contractWallets: wire[i + 5] === '1',
    });
    answers[out++] = Number(wire[i]);
    if (result.ok) {
      const { claims } = result;
      answers[out++] = 1;
      answers[out++] = claims.kind;
      answers[out++] = claims.chainId;
      answers[out++] = claims.nonce;
      answers[out++] = claims.signedBy;
      answers[out++] = claims.validUntil;
      answers[out++] = result.messageHash;
      answers[out++] = result.signer;
    } else {
      answers[out++] = 0;
      answers[out++] = result.code;
      answers[out++] = result.message;
      out += ANSWER_SLOTS - 3;
    }
  }
  return JSON.stringify(answers);
}

/** JSON has null where an answer had undefined; no answer holds null. */
const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** Each answer of a batch with the id of its job, as checkMessage gave it. */
export function readAnswers(answers: string, settle: (id: number, check: MessageCheck) => void): void {
  const wire = JSON.parse(answers) as (string | number | null)[];
  for (let i = 0; i < wire.length; i += ANSWER_SLOTS + 1) {
    const id = wire[i] as number;
    if (wire[i + 1] === 1) {
      settle(id, {
        ok: true,
        claims: {
          kind: wire[i + 2] as 'siwe' | 'plain',
          chainId: orUndefined(wire[i + 3] as number | null),
          nonce: orUndefined(wire[i + 4] as string | null),
          signedBy: wire[i + 5] as number,
          validUntil: wire[i + 6] as number,
        },
        messageHash: wire[i + 7] as string,
        signer: orUndefined(wire[i + 8] as string | null),
      });
    } else settle(id, { ok: false, code: wire[i + 2] as ErrorCode, message: wire[i + 3] as string });
  }
}
