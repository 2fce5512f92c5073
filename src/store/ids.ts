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
