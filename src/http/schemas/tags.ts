/**
 * The document's tags, in the order the reference shows them (sign in first, then what is signed
 * in for), each with what it groups: an operation's tag must be one of these.
 */
export const TAGS = [
  { name: 'auth', description: 'Signing in with a wallet: a nonce for the message, a check of the three headers, signing out' },
  { name: 'channels', description: 'The channels the signed-in admin is linked to; creating, renaming and archiving channels' },
  {
    name: 'admins',
    description: "A tenant's admins, their wallets, invitations and channel links, administered by its own admins (docs/administration.md)",
  },
  { name: 'files', description: "A channel's folders and files: upload, download, delete, versions, deleted files and restores" },
  { name: 'backups', description: 'Backups of a channel (named instants of its history) and what changed between two states' },
  {
    name: 'approvals',
    description:
      'Policies that hold dangerous operations until enough admins sign an intent (EIP-712), and the proposals they become (docs/approvals.md)',
  },
  { name: 'audit', description: "A channel's or the tenant's audit log: every change and refusal, with the admin who asked" },
  {
    name: 'events',
    description: "Webhooks that receive the tenant's audit log as events, signed, at least once, and their delivery logs (docs/events.md)",
  },
  {
    name: 'offsite',
    description:
      "The tenant's own off-site copy: its bucket, encrypted to its own age recipients, that the operator cannot take away (docs/offsite.md)",
  },
  {
    name: 'quotas',
    description: "What a tenant and each channel hold against their quotas, in bytes and files; a channel's quota (docs/quotas.md)",
  },
  { name: 'health', description: 'Liveness and readiness, for load balancers and orchestrators' },
  { name: 'docs', description: 'This document, and the API reference made from it' },
];
