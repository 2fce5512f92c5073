import { Type } from 'typebox';
import { instantParameter } from './files.ts';
import { BYTE_COUNT, responseHeader } from './response-header-shapes.ts';

export const ArchiveQuery = Type.Object({
  backupTimestamp: Type.Optional(
    Type.String({ description: 'The files as this backup holds them, yyyyMMdd_HHmmss (or at; neither: the live files)' }),
  ),
  at: instantParameter('Instead of a backup: the files as they were at this instant'),
});

/** The answer of an archive: a ZIP, streamed, of exactly one state of the folder or channel. */
export const ARCHIVE_RESPONSES = {
  200: {
    description:
      'A ZIP of the files (stored, not compressed), each at folder/filename, names in UTF-8; ZIP64 where sizes, offsets or the entry count need it',
    headers: {
      'Content-Disposition': responseHeader(
        'attachment; filename="<channel>[-<folder>][-<state>].zip"; filename*=…',
        { pattern: '^attachment; filename="[^"]*"; filename\\*=UTF-8\'\'\\S*$' },
        true,
      ),
      'Content-Length': responseHeader("The archive's exact length in bytes", BYTE_COUNT, true),
    },
    // The first bytes of every such archive: a local file header, its name in UTF-8.
    content: {
      'application/zip': { schema: Type.String({ format: 'binary' }), example: 'PK\u0003\u0004\u0014\u0000\u0008\u0008…docs/a.txt…' },
    },
  },
};

export const ARCHIVE_DESCRIPTION =
  'Streams a ZIP of the live files, of a backup (backupTimestamp) or of any retained instant (at), exactly that state whatever is written meanwhile. ' +
  'While it streams, retention keeps the bytes it reads. At most ARCHIVE_MAX_PER_ADMIN archives stream at once per admin (then 429). ' +
  "Recorded in the channel's audit log as an 'archive' entry once the stream ends.";
