import type { ChannelInfo, WalletAdminClient } from '../../client/index.ts';
import type { ApprovalsApi } from '../approvals/api.ts';
import type { ConsoleSession, SignedIn } from '../wallet/console-session.ts';

/** What every signed-in view gets: the client, who the admin is, and what they may do. */
export interface ViewContext {
  client: WalletAdminClient;
  /** Policies and proposals (docs/approvals.md). */
  approvals: ApprovalsApi;
  session: ConsoleSession;
  signedIn: SignedIn;
  can(permission: string): boolean;
  /** The channels the admin is linked to, by name; undefined until listed. */
  channels: readonly ChannelInfo[] | undefined;
  /** The channel's name when known (the admin's linked channels), else its id. */
  channelName(id: string): string;
  /**
   * Whether the admin is linked to the channel (named by id or name): undefined until their
   * channels are listed, or when there are more than one listing holds.
   */
  isLinkedChannel(ref: string): boolean | undefined;
  /** Says something in the page's status line (read out by screen readers). */
  announce(message: string, action?: { label: string; run(): void }): void;
  /** A channel was created, renamed or archived: the menu and the channels' names are listed again. */
  channelsChanged(): void;
  /** A proposal was made, approved or withdrawn: the count of pending ones in the top bar is asked again. */
  proposalsChanged(): void;
}
