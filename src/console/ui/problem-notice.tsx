import { HeldForApproval, HttpError, ProblemError } from '../../client/index.ts';
import { HeldNotice } from './held-notice.tsx';

/** What went wrong, as the service said it: the problem's detail and its stable code. */
export function ProblemNotice({ error, title }: { error: unknown; title?: string }) {
  if (error === undefined || error === null) return null;
  // Held by a policy is no failure: nothing was done yet, and the proposal says what it waits for.
  if (error instanceof HeldForApproval) return <HeldNotice proposal={error.proposal} />;
  return (
    <div class="notice notice-error" role="alert">
      {title && <strong>{title}</strong>}
      {error instanceof ProblemError ? (
        <p>
          {error.detail || error.title} <code class="code">{error.code}</code>
        </p>
      ) : (
        <p>{messageOf(error)}</p>
      )}
    </div>
  );
}

export function messageOf(error: unknown): string {
  if (error instanceof ProblemError) return `${error.detail} (${error.code})`;
  if (error instanceof HttpError) return error.message;
  // EIP-1193: 4001 is the admin declining in the wallet.
  if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 4001) {
    return 'The wallet declined to sign. Nothing was signed.';
  }
  if (error instanceof Error) return error.message;
  return String(error);
}
