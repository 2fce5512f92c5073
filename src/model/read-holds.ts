/**
 * Read holds (migration 025): a long read of a channel's stored bytes (an archive) holds the
 * channel's blobs against retention while it streams, on every instance: retention still removes
 * the records it no longer keeps, but the blobs they named are only deferred, and removed by a
 * later run once no hold of the channel is left. A hold lapses at `until` unless renewed, so a
 * reader that died holds nothing for long. Holds also bound the reads an admin has under way.
 */
export interface ReadHold {
  id: string;
  channelId: string;
  adminId: string;
  /** Epoch ms; past it the hold holds nothing. */
  until: number;
}

export interface ReadHolds {
  /**
   * Takes `hold` unless its admin would then have more than `maxPerAdmin` holds that have not
   * lapsed at `now`, in which case nothing is kept and the answer is false. Exact on several
   * instances: two takers racing for the last place may both be refused, never both admitted.
   */
  takeReadHold(hold: ReadHold, maxPerAdmin: number, now: number): Promise<boolean>;
  renewReadHold(id: string, until: number): Promise<void>;
  releaseReadHold(id: string): Promise<void>;
  /** Whether a hold of the channel has not lapsed at `now`. */
  channelReadHeld(channelId: string, now: number): Promise<boolean>;
}
