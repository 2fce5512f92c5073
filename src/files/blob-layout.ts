import { randomBytes } from 'node:crypto';
import { blobKey } from '../storage/safe-path.ts';

/**
 * Where each kind of bytes lives in blob storage. Live files sit at predictable paths
 * (files/<channelId>/<folder>/<filename>) so that any web server could serve them.
 */
export const liveKey = (channelId: string, folder: string, filename: string) => blobKey('files', channelId, folder, filename);

/**
 * `attempt` is fresh for every backup attempt: two processes backing up one channel in the same
 * second then never share a blob, and the database alone (one row per channel and second) picks
 * the one that stands; the other removes only its own links.
 */
export const backupKey = (channelId: string, timestamp: string, attempt: string, folder: string, filename: string) =>
  blobKey('backups', channelId, `${timestamp}-${attempt}`, folder, filename);

export const newBackupAttempt = () => randomBytes(4).toString('hex');

/** Kept versions get a fresh random name: one per replacement, never reused. */
export const versionKey = (channelId: string) => blobKey('versions', channelId, randomBytes(16).toString('hex'));
