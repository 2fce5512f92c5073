/** The page an invitation's link opens: the service's `url` is /console/invite#token=…. */
const INVITE_PATH = '/console/invite';

/**
 * The token of the invitation this page was opened for: undefined on any other page, '' on the
 * invitation page without one. It travels in the fragment, which no request carries to a server.
 */
export function invitationTokenOf(location: Pick<Location, 'pathname' | 'hash'>): string | undefined {
  if (location.pathname.replace(/\/$/, '') !== INVITE_PATH) return undefined;
  return new URLSearchParams(location.hash.replace(/^#/, '')).get('token') ?? '';
}

/** Leaves the invitation page for the console's home, the token gone from the address bar and the history. */
export function leaveInvitationPage(): void {
  window.history.replaceState(null, '', '/console/#/');
}
