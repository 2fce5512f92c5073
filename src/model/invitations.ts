import type { Admin } from './admins.ts';
import type { Page, PageRequest } from './paging.ts';

/**
 * Invitations: an admin asks someone whose wallet it may not know yet to join its tenant as an
 * admin below it, with permissions and channels. The token is shown once and stored only as its
 * SHA-256. Times are epoch milliseconds.
 */
export interface Invitation {
  id: string; // inv_…
  tenantId: string;
  inviterAdminId: string;
  displayName: string | null;
  /** Bound to this wallet (lowercase) when set: only it may accept. */
  wallet: string | null;
  permissions: string[];
  channelIds: string[];
  createdAt: number;
  expiresAt: number;
  acceptedAt: number | null;
  acceptedAdminId: string | null;
  revokedAt: number | null;
}

export type InvitationState = 'pending' | 'accepted' | 'revoked' | 'expired';

export const INVITATION_STATES: readonly InvitationState[] = ['pending', 'accepted', 'revoked', 'expired'];

export function invitationState(invitation: Invitation, now: number): InvitationState {
  if (invitation.acceptedAt !== null) return 'accepted';
  if (invitation.revokedAt !== null) return 'revoked';
  return invitation.expiresAt <= now ? 'expired' : 'pending';
}

export type NewInvitation = Omit<Invitation, 'id' | 'acceptedAt' | 'acceptedAdminId' | 'revokedAt'> & { tokenHash: string };

export interface InvitationRecords {
  createInvitation(input: NewInvitation): Promise<Invitation>;
  getInvitation(id: string): Promise<Invitation | undefined>;
  findInvitationByTokenHash(tokenHash: string): Promise<Invitation | undefined>;
  /** A tenant's invitations, newest first; only those of `inviterIds` when given. */
  listInvitations(tenantId: string, page: PageRequest, inviterIds?: readonly string[]): Promise<Page<Invitation>>;
  /** Revokes a pending invitation: false when it was accepted or revoked already. */
  revokeInvitation(id: string, at: number): Promise<boolean>;
  /**
   * Accepts the invitation, once: in one transaction it is marked accepted (only when still
   * pending at `at`) and its admin made (below the inviter, with its permissions, channels and
   * `wallet`). An acceptance that finds it no longer pending changes nothing and says why
   * (INVITATION_USED, INVITATION_REVOKED, INVITATION_EXPIRED); a wallet that has an admin, WALLET_TAKEN.
   */
  acceptInvitation(id: string, accept: { wallet: string; displayName: string; at: number }): Promise<Admin>;
}

/** The exact message a new wallet was asked to sign to join an admin, kept by its SHA-256 until used or expired. */
export interface WalletChallenge {
  messageHash: string;
  adminId: string;
  wallet: string; // lowercase
  chainId: number;
  expiresAt: number;
}

export interface WalletChallengeRecords {
  saveWalletChallenge(challenge: WalletChallenge): Promise<void>;
  /** Marks the challenge used, at most once: the challenge, or undefined when unknown, used already or expired at `at`. */
  useWalletChallenge(messageHash: string, at: number): Promise<WalletChallenge | undefined>;
  /** The challenge while it is open (not used, not expired at `at`), without using it. */
  openWalletChallenge(messageHash: string, at: number): Promise<WalletChallenge | undefined>;
}
