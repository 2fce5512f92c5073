import { AppError } from '../../../errors/app-error.ts';
import { whatBodySays } from '../../server/body-members.ts';
import { nameList, plural } from '../../server/name-list.ts';

/**
 * A restore's body. The contract shows none and its clients send Content-Type: application/json,
 * so no body, an empty one, `{}` and `null` are accepted. Whatever names the backup and the options
 * goes in the query (`takes`): a body that says anything — `{"backupTimestamp": "…"}` — is refused,
 * naming what it said, because ignoring it would restore another backup than the one meant.
 */
export function requireEmptyRestoreBody(body: unknown, takes: string): void {
  const said = whatBodySays(body);
  if (said === undefined) return;
  if ('members' in said) {
    throw new AppError(
      'VALIDATION_FAILED',
      `The restore body must be empty, {} or null; it has ${plural('member', said.members.length)} ${nameList(said.members)}, which a restore does not read: ${takes} in the query`,
    );
  }
  throw new AppError('VALIDATION_FAILED', `The restore body must be empty, {} or null, not ${said.kind}: ${takes} in the query`);
}
