import type { Proposal } from './types.ts';
/** An answer the client did not expect: an error status, or a body of the wrong shape. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  /** The body as text (cut to 1,000 characters), for logs and messages. */
  readonly body: string;

  constructor(status: number, message: string, body: string) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/**
 * An RFC 9457 problem answered by the service (every 4xx and 5xx of the API is one): `code` is
 * stable, `detail` is for people.
 */
export class ProblemError extends HttpError {
  override name = 'ProblemError';
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly type: string;
  /** The request path; absent when the service refused the request before routing it. */
  readonly instance: string | undefined;
  readonly requestId: string | undefined;

  constructor(problem: Problem, body: string) {
    super(problem.status, `${problem.status} ${problem.code}: ${problem.detail}`, body);
    this.code = problem.code;
    this.title = problem.title;
    this.detail = problem.detail;
    this.type = problem.type;
    this.instance = problem.instance;
    this.requestId = problem.requestId;
  }
}

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  requestId?: string;
}

const BODY_KEPT = 1000;

/** The error for a response that is not ok: a ProblemError when the body is a problem, else an HttpError. */
export async function errorOf(response: Response): Promise<HttpError> {
  const body = (await response.text().catch(() => '')).slice(0, BODY_KEPT);
  const problem = parseProblem(response.headers.get('content-type'), body);
  if (problem) return new ProblemError(problem, body);
  const summary = body.trim() === '' ? '' : `: ${body.trim().slice(0, 200)}`;
  return new HttpError(response.status, `${response.status} ${response.statusText || 'error'} (not a problem document)${summary}`, body);
}

function parseProblem(contentType: string | null, body: string): Problem | undefined {
  if (!/^application\/(problem\+)?json\b/i.test(contentType ?? '')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  if (typeof fields.status !== 'number' || typeof fields.code !== 'string') return undefined;
  const text = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : undefined);
  return {
    type: text('type') ?? 'about:blank',
    title: text('title') ?? '',
    status: fields.status,
    detail: text('detail') ?? '',
    code: fields.code,
    instance: text('instance'),
    requestId: text('requestId'),
  };
}

/**
 * A request a policy of the tenant holds (docs/approvals.md): the service answered 202 with a
 * proposal, and nothing was done yet. Not a failure: the operation runs once enough admins sign its
 * intent (approveProposal). Thrown, so that a caller that expects the operation's own answer never
 * takes the proposal for it.
 */
export class HeldForApproval extends Error {
  override name = 'HeldForApproval';
  readonly proposal: Proposal;

  constructor(proposal: Proposal) {
    super(`Held for approval: proposal ${proposal.id} needs ${proposal.required} intents (${proposal.summary})`);
    this.proposal = proposal;
  }
}
