import { randomBytes } from 'node:crypto';
import { blobKey } from '../blobs/safe-path.ts';
import { storedForm } from '../names/name-form.ts';

/**
 * Where bytes live in blob storage. Every write stores its bytes under a fresh key that no row
 * names yet, and nothing rewrites a key once written, so a record always describes the bytes its
 * key holds (docs/architecture.md, "How a write commits"): objects/<channelId>/<2 hex>/<30 hex>, the first two
 * characters spreading a channel's blobs over 256 directories on disk.
 */
export function newBlobKey(channelId: string): string {
  const name = randomBytes(16).toString('hex');
  return blobKey('objects', channelId, name.slice(0, 2), name.slice(2));
}

/**
 * Where releases before migration 011 kept a live file, which the migration names as its blob,
 * and where their write journal's entries point (write-journal.ts). Nothing writes there any more.
 */
export const legacyLiveKey = (channelId: string, folder: string, filename: string) => blobKey('files', channelId, folder, filename);

/**
 * What serialises the writes of one live file (its lock's key), in every process and instance:
 * the file's path in the channel, whatever blob holds its bytes, in NFC. Every spelling of a name
 * takes one lock: a write naming 'e\u0301.txt' and one naming '\u00e9.txt' may reach the same
 * file (file-names.ts), and each decides which file under the lock. For names in NFC, the same
 * string as the previous releases' lock key, so that a process of either excludes the other's
 * writes during an upgrade.
 */
export const fileLockKey = (channelId: string, folder: string, filename: string) =>
  legacyLiveKey(channelId, storedForm(folder), storedForm(filename));

/** The channel whose blob `key` is (objects/<channelId>/…); undefined for a key of no channel's. */
export function channelOfBlobKey(key: string): string | undefined {
  const [root, channelId] = key.split('/', 2);
  return root === 'objects' || root === 'files' ? channelId : undefined;
}
