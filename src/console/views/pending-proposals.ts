import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { ApprovalsApi } from '../approvals/api.ts';

/** Enough to count what waits for approval; more shows as "100+". */
const COUNTED = 100;

export interface PendingCount {
  /** How many proposals wait (undefined until known, or when listing them failed). */
  count: number | undefined;
  /** More than `count` wait. */
  more: boolean;
  reload(): void;
}

/**
 * How many of the tenant's proposals wait for approval, for the top bar: asked again on every view
 * the admin opens (`where`) and whenever a proposal is made, approved or withdrawn in this page.
 */
export function usePendingCount(approvals: ApprovalsApi | undefined, where: string): PendingCount {
  const [counted, setCounted] = useState<{ count: number | undefined; more: boolean }>({ count: undefined, more: false });
  const [round, setRound] = useState(0);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  useEffect(() => {
    if (!approvals) {
      setCounted({ count: undefined, more: false });
      return;
    }
    let current = true;
    approvals.listProposals({ status: 'pending', limit: COUNTED }).then(
      (page) => current && setCounted({ count: page.items.length, more: page.next !== null }),
      // The count is a hint: the proposals page lists them and reports its own failure.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [approvals, where, round]);
  return useMemo(() => ({ ...counted, reload }), [counted, reload]);
}
