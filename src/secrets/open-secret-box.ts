import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors/app-error.ts';
import { SecretBox } from './secret-box.ts';

/** The file an embedded (SQLite) install keeps its secrets key in when SECRETS_KEY is unset. */
export const EMBEDDED_KEY_FILE = 'secrets.key';

/**
 * The service's SecretBox: SECRETS_KEY when set. Unset, an embedded install (one machine, SQLite)
 * makes a key of its own in DATA_DIR, so that `npm start` keeps webhooks working with no setting;
 * on PostgreSQL, where several instances must share one key and the database may be rebuilt from
 * an off-site copy elsewhere, nothing that keeps a secret works until SECRETS_KEY is set
 * (requireSecretBox says so). Either way the key must be kept beside the off-site age identity:
 * a rebuild without it loses every kept secret (docs/offsite.md).
 */
export function openSecretBox(options: { secretsKey: Buffer | undefined; dataDir: string; embedded: boolean }): SecretBox | undefined {
  if (options.secretsKey !== undefined) return new SecretBox(options.secretsKey);
  if (!options.embedded) return undefined;
  const file = path.join(options.dataDir, EMBEDDED_KEY_FILE);
  if (!existsSync(file)) {
    // Written whole under a name of its own, then linked into place: of two processes starting at
    // once (the service and the CLI), one key wins and the other reads it complete.
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(temp, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flush: true });
    try {
      linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(temp, { force: true });
    }
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key: remove it only if no secret was sealed under it`);
  return new SecretBox(key);
}

/** The box, or 503 saying which setting is missing. */
export function requireSecretBox(box: SecretBox | undefined): SecretBox {
  if (box !== undefined) return box;
  throw new AppError(
    'SERVICE_UNAVAILABLE',
    'SECRETS_KEY is not set: on PostgreSQL the service keeps no secret (webhook signing secrets) until the operator sets it, the same on every instance',
  );
}
