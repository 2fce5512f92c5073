import { randomBytes } from 'node:crypto';
import { blobKey } from '../storage/safe-path.ts';

/**
 * Where each kind of bytes lives in blob storage. Live files sit at predictable paths
 * (files/<channelId>/<folder>/<filename>) so that any web server could serve them.
 */
export const liveKey = (channelId: string, folder: string, filename: string) => blobKey('files', channelId, folder, filename);

/** Kept versions get a fresh random name: one per replacement, never reused. */
export const versionKey = (channelId: string) => blobKey('versions', channelId, randomBytes(16).toString('hex'));
