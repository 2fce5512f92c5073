import { randomBytes } from 'node:crypto';

// Lowercase Crockford base32: no look-alike letters, and every collation orders it the same way,
// so "order by created_at, id" gives one order on both engines.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const RANDOM_CHARS = 26; // 130 bits

function randomSuffix(): string {
  // 32 divides 256, so taking each byte modulo 32 keeps every character equally likely.
  let suffix = '';
  for (const byte of randomBytes(RANDOM_CHARS)) suffix += ALPHABET[byte % 32];
  return suffix;
}

export const newTenantId = (): string => `t_${randomSuffix()}`;
export const newAdminId = (): string => `adm_${randomSuffix()}`;
export const newChannelId = (): string => `chn_${randomSuffix()}`;
export const newInvitationId = (): string => `inv_${randomSuffix()}`;
/** A tenant's webhook (docs/events.md). */
export const newWebhookId = (): string => `whk_${randomSuffix()}`;
/** An archive's hold of a channel's blobs (src/model/read-holds.ts). */
export const newReadHoldId = (): string => `rhd_${randomSuffix()}`;

// Versions and audit events are listed newest first by (created_at, id); a time prefix keeps
// ids made in the same millisecond by this process in the order they were made.
let lastTime = 0;
let sequence = 0;

function timeOrderedSuffix(): string {
  const now = Date.now();
  if (now === lastTime) sequence++;
  else [lastTime, sequence] = [now, 0];
  let time = '';
  for (let value = now, i = 0; i < 10; i++, value = Math.floor(value / 32)) time = ALPHABET[value % 32] + time;
  let counter = '';
  for (let value = sequence, i = 0; i < 4; i++, value = Math.floor(value / 32)) counter = ALPHABET[value % 32] + counter;
  return `${time}${counter}${randomSuffix().slice(0, 12)}`;
}

export const newVersionId = (): string => `ver_${timeOrderedSuffix()}`;
export const newAuditId = (): string => `aud_${timeOrderedSuffix()}`;
export const newWriteId = (): string => `wri_${timeOrderedSuffix()}`;
/** A folder or channel restore, as its audit events name it. */
export const newOperationId = (): string => `op_${timeOrderedSuffix()}`;
/** A proposal: a held operation waiting for its approvals (docs/approvals.md). */
export const newProposalId = (): string => `prp_${randomSuffix()}`;
/** One event a destination took up, in its delivery log: newest first by id. */
export const newDeliveryId = (): string => `dlv_${timeOrderedSuffix()}`;
