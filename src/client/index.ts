/**
 * `@wallet-admin/client` (packages/client): a typed client of the service's API for browsers and
 * Node (global fetch, TextEncoder, btoa, atob and WebCrypto only; no Node module, no server code).
 */

export { HELD_OPERATIONS } from './approvals.ts';
export { AUDIT_RESULTS, CHANNEL_AUDIT_ACTIONS, TENANT_AUDIT_ACTIONS } from './audit-actions.ts';
export {
  type ArchiveOptions,
  type ByteRange,
  type ClientOptions,
  createClient,
  type IfMatch,
  type RestoreResult,
  type RestoreSource,
  type ScopeRestoreOptions,
  type SignedIn,
  type UploadBody,
  type UploadConditions,
  type UploadResult,
  type WalletAdminClient,
} from './client.ts';
export { errorOf, HeldForApproval, HttpError, ProblemError } from './errors.ts';
export { previewInvitation } from './invitation-preview.ts';
export { paginate } from './paginate.ts';
export { PERMISSIONS } from './permissions.ts';
export type { SignedHeaders } from './sign-in.ts';
export {
  type Eip1193Provider,
  type EthersSignerLike,
  fromEip1193,
  fromEthersSigner,
  fromViemAccount,
  type ViemAccountLike,
  type WalletSigner,
} from './signers.ts';
export { formatSignInMessage, type SignInMessageFields, toChecksumAddress } from './siwe.ts';
export type {
  Admin,
  AdminChanges,
  AdministrationAction,
  AdminQuery,
  AdminWallet,
  AuditEvent,
  AuditHead,
  AuditIntentsSummary,
  AuditQuery,
  AuthTestResponse,
  Backup,
  BackupLock,
  BackupLockChange,
  ChangesQuery,
  ChannelChanges,
  ChannelInfo,
  CreatedWebhook,
  DeletedFile,
  FileChange,
  FileInfo,
  FileVersion,
  FolderInfo,
  HeldOperation,
  IntentTypedData,
  Invitation,
  InvitationPreview,
  IssuedInvitation,
  Items,
  NewAdmin,
  NewInvitation,
  NewWebhook,
  NonceResponse,
  OffsiteTestResult,
  Page,
  PageRequest,
  Permission,
  Policy,
  PolicyRule,
  Principal,
  Proposal,
  ProposalQuery,
  ProposalStatus,
  RotatedWebhookSecret,
  ScopeRestoreResult,
  Tagged,
  TenantAuditEvent,
  TenantAuditQuery,
  TenantOffsite,
  TenantOffsiteSettings,
  TenantOffsiteStatus,
  TypedData,
  WalletChallenge,
  WalletProof,
  WalletProofTypedData,
  Webhook,
  WebhookChanges,
  WebhookDelivery,
  WebhookDeliveryQuery,
  WebhookDeliveryStatus,
  WebhookEvent,
  WebhookResult,
  WebhookTestResult,
} from './types.ts';
export { type VerifyWebhookOptions, verifyWebhook, type WebhookHeaders, WebhookVerificationError } from './webhook-verifier.ts';
