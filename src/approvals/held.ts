import type { Proposal } from '../model/approvals.ts';

/** What a request for an operation a policy may hold comes to: it ran, or it waits as a proposal (202). */
export type Held<T> = { ran: T; proposal?: undefined } | { proposal: Proposal; ran?: undefined };

/** The operation ran at once: no policy holds it. */
export const ran = <T>(value: T): Held<T> => ({ ran: value });
