/**
 * Who acts on a tenant's records, as its audit entries say: an admin (by id), the operator's local
 * CLI (adminId null, `operator` its label), or the service itself (neither: the schedule, retention,
 * the demo seed). A step of a held operation's run carries the run too.
 */
export interface Who {
  adminId: string | null;
  /** The operator's label (OPERATOR_LABEL) when the operator's CLI acts; adminId is then null. */
  operator?: string | undefined;
  /**
   * The held operation's run this change is a step of (proposal-runs.ts): its entries carry the
   * proposal's id, and each step's transaction renews the run's lease, or fails once another
   * instance has taken the run over.
   */
  run?: RunLease | undefined;
}

/** A held operation's run, as its steps carry it: the proposal, the lease's token, and how long each renewal lasts. */
export interface RunLease {
  proposalId: string;
  token: string;
  leaseMs: number;
}

/** The members of an audit entry that say who acted, and the run it is a step of (renewed until `now` + the lease). */
export function actorMembers(who: Who, now: number) {
  return {
    adminId: who.adminId,
    operator: who.adminId === null ? (who.operator ?? null) : null,
    proposalId: who.run?.proposalId ?? null,
    ...(who.run === undefined ? {} : { lease: { token: who.run.token, until: now + who.run.leaseMs } }),
  };
}
