import { HeldForApproval } from '../../client/index.ts';
import { navigate } from '../routing.ts';
import { lowerFirst } from '../ui/format.ts';
import { messageOf } from '../ui/problem-notice.tsx';
import type { ViewContext } from './context.ts';

/** Brings a deleted file back from the version its deletion kept (the newest "deleted" one). */
export async function undoDelete(ctx: ViewContext, channel: string, folder: string, filename: string): Promise<void> {
  const versions = await ctx.client.versions(channel, folder, filename, { limit: 20 });
  const kept = versions.items.find((version) => version.kind === 'deleted');
  if (!kept) throw new Error('The deleted bytes were not found among the versions');
  await ctx.client.restore(channel, folder, filename, { versionId: kept.id });
}

/**
 * The status line's offer to undo a restore of `what`: `undo` restores what the restore replaced,
 * then `done` shows the result; a failure is said there too.
 */
export function undoRestoreOffer(ctx: ViewContext, what: string, undo: () => Promise<unknown>, done: () => void) {
  return {
    label: 'Undo restore',
    run: () =>
      undo().then(
        () => {
          ctx.announce(`Restore of ${what} undone.`);
          done();
        },
        (error: unknown) => {
          // An undo is a restore too, which a policy may hold: it then waits for approvals.
          if (error instanceof HeldForApproval) {
            ctx.proposalsChanged();
            ctx.announce(`The undo of the restore of ${what} ${lowerFirst(error.message)}.`, {
              label: 'Open the proposal',
              run: () => navigate({ view: 'proposals', id: error.proposal.id }),
            });
            return;
          }
          ctx.session.noticeError(error);
          ctx.announce(`Could not undo the restore: ${messageOf(error)}`);
        },
      ),
  };
}
