import { Type } from 'typebox';

/** A channel the caller is linked to (GET /api/channels). */
export const ChannelSchema = Type.Object({
  id: Type.String({ pattern: '^chn_', description: 'Usable as {channelRef} in every channel path' }),
  name: Type.String({ description: 'Unique in the tenant; also usable as {channelRef}' }),
  archived: Type.Boolean({ description: 'Read-only: uploads, deletes and restores are refused (409 CHANNEL_ARCHIVED)' }),
  createdAt: Type.String({ format: 'date-time' }),
});

/** A folder of a channel (GET /api/channels/{channelRef}/folders): one that holds at least one live file. */
export const FolderSchema = Type.Object({
  name: Type.String(),
  fileCount: Type.Integer({ minimum: 1, description: 'Live files in the folder (deleted files, kept as versions, do not count)' }),
});
