import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { test } from 'node:test';
import type { Static } from 'typebox';
import type * as Client from '../../src/client/index.ts';
import type {
  AdminChangeBody,
  AdminListQuery,
  AdminSchema,
  InvitationPreviewSchema,
  InvitationSchema,
  IssuedInvitationSchema,
  NewAdminBody,
  NewInvitationBody,
  TenantAuditEventSchema,
  TenantAuditQuery,
  WalletChallengeSchema,
  WalletProofBody,
  WalletSchema,
} from '../../src/http/schemas/administration.ts';
import type { AuditHeadSchema } from '../../src/http/schemas/audit-chain.ts';
import type { AuthTestResponseSchema, NonceResponseSchema, PrincipalSchema } from '../../src/http/schemas/auth.ts';
import type { ChannelSchema, FolderSchema } from '../../src/http/schemas/channels.ts';
import type {
  AuditEventSchema,
  AuditQuery,
  BackupLockBody,
  BackupSchema,
  FileSchema,
  PageQuery,
  VersionSchema,
} from '../../src/http/schemas/files.ts';
import type { ChangesQuery, DeletedFileSchema, FileChangeSchema } from '../../src/http/schemas/history.ts';
import type { TargetCheckSchema, TenantOffsiteBody, TenantOffsiteSchema } from '../../src/http/schemas/offsite.ts';
import type { ScopeRestoreResultSchema } from '../../src/http/schemas/scope-restore.ts';
import type {
  CreatedWebhookSchema,
  DeliveryQuery,
  DeliverySchema,
  NewWebhookBody,
  RotatedSecretSchema,
  WebhookChangeBody,
  WebhookSchema,
  WebhookTestSchema,
} from '../../src/http/schemas/webhooks.ts';

/*
 * The client's types are written out (src/client/types.ts), since its package may name nothing of
 * the service; here each is held equal to the type of the schema its route validates and serializes
 * with. `npm run typecheck` fails on any difference, a field added, dropped or changed on either side.
 */

/** The same type, field for field (nested objects and arrays included), whatever the way it is written. */
type Flat<T> = T extends Date ? T : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;
type Equal<A, B> = (<X>() => X extends Flat<A> ? 1 : 2) extends <X>() => X extends Flat<B> ? 1 : 2 ? true : false;

export const sameAsTheSchemas: [
  Equal<Client.Principal, Static<typeof PrincipalSchema>>,
  Equal<Client.AuthTestResponse, Static<typeof AuthTestResponseSchema>>,
  Equal<Client.NonceResponse, Static<typeof NonceResponseSchema>>,
  Equal<Client.FileInfo, Static<typeof FileSchema>>,
  Equal<Client.FileVersion, Static<typeof VersionSchema>>,
  Equal<Client.Backup, Static<typeof BackupSchema>>,
  Equal<Client.BackupLockChange, Static<typeof BackupLockBody>>,
  Equal<Client.AuditEvent, Static<typeof AuditEventSchema>>,
  Equal<Client.ChannelInfo, Static<typeof ChannelSchema>>,
  Equal<Client.FolderInfo, Static<typeof FolderSchema>>,
  Equal<Client.DeletedFile, Static<typeof DeletedFileSchema>>,
  Equal<Client.FileChange, Static<typeof FileChangeSchema>>,
  Equal<Client.PageRequest, Static<typeof PageQuery>>,
  Equal<Client.AuditQuery, Static<typeof AuditQuery>>,
  // The instants are also taken as Dates, which the client writes as RFC 3339.
  Equal<Omit<Client.ChangesQuery, 'fromAt' | 'toAt'>, Omit<Static<typeof ChangesQuery>, 'fromAt' | 'toAt'>>,
  Equal<Client.ChangesQuery['fromAt'], Date | Static<typeof ChangesQuery>['fromAt']>,
  // The plan's ETag comes from the answer's header.
  Equal<Omit<Client.ScopeRestoreResult, 'etag'>, Static<typeof ScopeRestoreResultSchema>>,
  Equal<Client.Admin, Static<typeof AdminSchema>>,
  Equal<Client.AdminQuery, Static<typeof AdminListQuery>>,
  Equal<Client.NewAdmin, Static<typeof NewAdminBody>>,
  Equal<Client.AdminChanges, Static<typeof AdminChangeBody>>,
  Equal<Client.AdminWallet, Static<typeof WalletSchema>>,
  Equal<Client.WalletChallenge, Static<typeof WalletChallengeSchema>>,
  Equal<Client.WalletProof, Static<typeof WalletProofBody>>,
  Equal<Client.Invitation, Static<typeof InvitationSchema>>,
  Equal<Client.IssuedInvitation, Static<typeof IssuedInvitationSchema>>,
  Equal<Client.InvitationPreview, Static<typeof InvitationPreviewSchema>>,
  Equal<Client.NewInvitation, Static<typeof NewInvitationBody>>,
  Equal<Client.TenantAuditEvent, Static<typeof TenantAuditEventSchema>>,
  Equal<Client.TenantAuditQuery, Static<typeof TenantAuditQuery>>,
  Equal<Client.AuditHead, Static<typeof AuditHeadSchema>>,
  Equal<Client.Webhook, Static<typeof WebhookSchema>>,
  Equal<Client.CreatedWebhook, Static<typeof CreatedWebhookSchema>>,
  Equal<Client.NewWebhook, Static<typeof NewWebhookBody>>,
  Equal<Client.WebhookChanges, Static<typeof WebhookChangeBody>>,
  Equal<Client.WebhookTestResult, Static<typeof WebhookTestSchema>>,
  Equal<Client.RotatedWebhookSecret, Static<typeof RotatedSecretSchema>>,
  Equal<Client.WebhookDelivery, Static<typeof DeliverySchema>>,
  Equal<Client.WebhookDeliveryQuery, Static<typeof DeliveryQuery>>,
  Equal<Client.TenantOffsite, Static<typeof TenantOffsiteSchema>>,
  Equal<Client.TenantOffsiteSettings, Static<typeof TenantOffsiteBody>>,
  Equal<Client.OffsiteTestResult, Static<typeof TargetCheckSchema>>,
] = [
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
];

test("the client's sources import nothing outside src/client but @noble/hashes, which its package bundles", async () => {
  const dir = new URL('../../src/client/', import.meta.url);
  const files = (await readdir(dir)).filter((name) => name.endsWith('.ts'));
  assert.ok(files.includes('index.ts'));
  for (const name of files) {
    const source = await readFile(new URL(name, dir), 'utf8');
    for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      assert.ok(/^\.\/[\w-]+\.ts$/.test(specifier!) || specifier!.startsWith('@noble/hashes/'), `${name} imports ${specifier}`);
    }
  }
  assert.equal(sameAsTheSchemas.length, 42);
});

test("the client's lists of the audit logs' filter values and of the permissions are the service's", async () => {
  const Client = await import('../../src/client/index.ts');
  const model = await import('../../src/model/audit.ts');
  assert.deepEqual([...Client.CHANNEL_AUDIT_ACTIONS], [...model.AUDIT_ACTIONS]);
  assert.deepEqual([...Client.TENANT_AUDIT_ACTIONS].sort(), [...model.TENANT_AUDIT_ACTIONS].sort());
  assert.deepEqual([...Client.AUDIT_RESULTS], [...model.AUDIT_RESULTS]);
  const permissions = await import('../../src/model/permissions.ts');
  assert.deepEqual([...Client.PERMISSIONS], [...permissions.ALL_PERMISSIONS]);
  const approvals = await import('../../src/model/approvals.ts');
  assert.deepEqual([...Client.HELD_OPERATIONS], [...approvals.HELD_OPERATIONS]);
});
