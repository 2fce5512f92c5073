import { errorOf } from './errors.ts';
import { json } from './requests.ts';
import type { InvitationPreview } from './types.ts';

/**
 * What an invitation grants and who invites (POST /api/invitations/preview), for the holder of its
 * link to read before any wallet signs: no sign-in, the token is the credential, sent in the body so
 * that no URL holds it. A ProblemError 404 INVITATION_NOT_FOUND for a wrong token (it counts against
 * the address's failures, AUTH_FAIL_LIMIT), 409 for a used, revoked or expired invitation.
 */
export async function previewInvitation(options: { baseUrl: string; fetch?: typeof fetch }, token: string): Promise<InvitationPreview> {
  const send: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const response = await send(new URL('/api/invitations/preview', new URL(options.baseUrl).origin).href, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (!response.ok) throw await errorOf(response);
  return json<InvitationPreview>(response);
}
