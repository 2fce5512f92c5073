import type { FastifyReply } from 'fastify';
import type { Archive } from '../../../files/archive/archive-service.ts';

/** A folder's or a channel's archive as a download: its length, its name, and the stream itself. */
export function archiveAnswer(reply: FastifyReply, archive: Archive): FastifyReply {
  return reply
    .type('application/zip')
    .header('Content-Length', archive.size)
    .header('Content-Disposition', archive.disposition)
    .header('Cache-Control', 'no-store')
    .send(archive.stream);
}
