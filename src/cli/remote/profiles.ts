import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SignedHeaders } from '../../client/index.ts';
import { UsageError } from '../command.ts';

/**
 * Saved profiles: where a service is and how to sign in to it, in the user's config folder
 * ($XDG_CONFIG_HOME/wallet-admin/profiles.json, else ~/.config/…). The file holds paths and names,
 * never a password or key; it also keeps the last signed message of each profile, so that a
 * keystore's password is asked once per message, and drops it once expired. A signed message is a
 * credential: the file is the user's alone (0600, its folder 0700), and one others may read is refused.
 */

export interface SavedMessage {
  headers: SignedHeaders;
  /** RFC 3339. */
  expiresAt: string;
}

export interface Profile {
  /** The service's origin, checked when saved (https://, or http:// to this machine). */
  url: string;
  /** Absolute path. */
  keystore?: string;
  passwordFile?: string;
  passwordEnv?: string;
  signedIn?: SavedMessage;
}

export type Profiles = Record<string, Profile>;

export function profilesFile(env: NodeJS.ProcessEnv): string {
  const configHome =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : path.join(os.homedir(), '.config');
  return path.join(configHome, 'wallet-admin', 'profiles.json');
}

/** The profiles, without any message expired by `now`; none when the file does not exist yet. */
export async function readProfiles(file: string, now = Date.now()): Promise<Profiles> {
  let text: string;
  try {
    const info = await stat(file);
    if ((info.mode & 0o077) !== 0) {
      throw new UsageError(`${file} may be read by other users (mode ${(info.mode & 0o777).toString(8)}): run chmod 600 ${file}`);
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  let profiles: Profiles;
  try {
    profiles = JSON.parse(text) as Profiles;
  } catch {
    throw new UsageError(`${file} is not JSON: fix it or remove it (wallet-admin profile save writes it anew)`);
  }
  for (const profile of Object.values(profiles)) {
    if (profile.signedIn && Date.parse(profile.signedIn.expiresAt) <= now) delete profile.signedIn;
  }
  return profiles;
}

/** Writes the whole file at once (a new file renamed over the old), created 0600 so that it is never readable by others. */
export async function writeProfiles(file: string, profiles: Profiles): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(profiles, null, 2)}\n`);
  } finally {
    await handle.close();
  }
  // A umask cannot widen 0600, but the mode is set anyway: the file's privacy is the point.
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

/** One profile by name, or a usage error naming the saved ones. */
export function profileNamed(profiles: Profiles, name: string, file: string): Profile {
  const profile = profiles[name];
  if (profile) return profile;
  const saved = Object.keys(profiles);
  throw new UsageError(
    `No profile "${name}" in ${file}${saved.length > 0 ? ` (saved: ${saved.join(', ')})` : ''}; save one with wallet-admin profile save`,
  );
}
