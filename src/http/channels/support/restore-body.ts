import { AppError } from '../../../errors/app-error.ts';
import { nameList, plural } from '../../server/name-list.ts';

/**
 * A restore's body. The contract shows none and its clients send Content-Type: application/json,
 * so no body, an empty one, `{}` and `null` are accepted. Whatever names the backup and the options
 * goes in the query (`takes`): a body that says anything — `{"backupTimestamp": "…"}` — is refused,
 * naming what it said, because ignoring it would restore another backup than the one meant.
 */
export function requireEmptyRestoreBody(body: unknown, takes: string): void {
  if (body === undefined || body === null) return;
  // text/plain, which Fastify reads as a string: only an empty one says nothing.
  if (typeof body === 'string' && body.trim() === '') return;
  if (typeof body === 'object' && !Array.isArray(body)) {
    const members = Object.keys(body);
    if (members.length === 0) return;
    throw new AppError(
      'VALIDATION_FAILED',
      `The restore body must be empty, {} or null; it has ${plural('member', members.length)} ${nameList(members)}, which a restore does not read: ${takes} in the query`,
    );
  }
  throw new AppError('VALIDATION_FAILED', `The restore body must be empty, {} or null, not ${kindOf(body)}: ${takes} in the query`);
}

function kindOf(body: unknown): string {
  if (Array.isArray(body)) return 'an array';
  if (typeof body === 'string') return 'text';
  return `a ${typeof body}`;
}
