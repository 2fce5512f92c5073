import { useState } from 'preact/hooks';
import type { ExportSummary, PublishedHead } from '../../audit-chain/verify-export.ts';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import type { ViewContext } from './context.ts';

/** Lines checked between two paints: a long log keeps the page responsive and its progress shown. */
const LINES_PER_SLICE = 200;

/** The export's lines, handing the browser back its turn every slice so that the count on screen moves. */
async function* paced(lines: string[], onProgress: (done: number) => void): AsyncGenerator<string> {
  for (let i = 0; i < lines.length; i++) {
    if (i % LINES_PER_SLICE === 0 && i > 0) {
      onProgress(i);
      await new Promise((resolve) => setTimeout(resolve));
    }
    yield lines[i]!;
  }
}

/** A head pasted as the service's JSON (`{"seq": …, "hash": …}`), or as `seq hash`; undefined when it is neither. */
function parseHead(text: string): PublishedHead | undefined {
  const trimmed = text.trim();
  try {
    const { seq, hash } = JSON.parse(trimmed) as { seq?: unknown; hash?: unknown };
    if (Number.isInteger(seq) && typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash)) return { seq: seq as number, hash };
  } catch {
    // Not JSON: the two values as words.
  }
  const match = /^(\d+)\s*[:\s,]\s*([0-9a-f]{64})$/.exec(trimmed);
  return match ? { seq: Number(match[1]), hash: match[2]! } : undefined;
}

/**
 * "Verify the log" (an owner): fetches the tenant's whole export and checks its hash chain and every
 * signed intent here, in the browser, with the very code of `wallet-admin audit verify`, so that
 * what the page says does not rest on the service's word. A head published earlier may be pasted:
 * the export must reach it unchanged (only that catches a log rewritten or cut short as a whole).
 */
export function VerifyLog({ ctx }: { ctx: ViewContext }) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const [progress, setProgress] = useState<{ done: number; total: number }>();
  const [result, setResult] = useState<{ summary: ExportSummary; lines: number; head: PublishedHead | undefined }>();
  const [headText, setHeadText] = useState('');
  const head = headText.trim() === '' ? undefined : parseHead(headText);
  const headInvalid = headText.trim() !== '' && head === undefined;

  const verify = () =>
    action.run(async () => {
      setResult(undefined);
      setProgress(undefined);
      // The verifier (hashing and signature recovery, half the console's code) is fetched only now:
      // most admins never press this button, and every page load would otherwise pay for it.
      const [{ verifyExport }, text] = await Promise.all([import('../../audit-chain/verify-export.ts'), ctx.client.exportTenantAudit()]);
      const lines = text.split('\n').filter((line) => line !== '');
      setProgress({ done: 0, total: lines.length });
      const summary = await verifyExport(
        paced(lines, (done) => setProgress({ done, total: lines.length })),
        { head },
      );
      setResult({ summary, lines: lines.length, head });
      setProgress(undefined);
    });

  return (
    <section class="card" aria-labelledby="verify-title">
      <h2 id="verify-title">Verify the log</h2>
      <p class="muted">
        Each entry's hash covers the entry and the one before it. This downloads the whole log and checks the chain and every signed intent
        here, in your browser, as <code>wallet-admin audit verify</code> does offline.
      </p>
      <form
        class="inline-form inline-form-first"
        onSubmit={(event) => {
          event.preventDefault();
          if (!headInvalid) verify();
        }}
      >
        <label class="field">
          <span>A head published earlier (optional)</span>
          <input
            value={headText}
            onInput={(event) => setHeadText((event.target as HTMLInputElement).value)}
            placeholder='{"seq": 42, "hash": "…"}'
            aria-invalid={headInvalid}
            aria-describedby="verify-head-help"
          />
        </label>
        <button type="submit" class="button button-primary" disabled={action.busy || headInvalid}>
          {action.busy ? 'Verifying…' : 'Verify the log'}
        </button>
      </form>
      <p id="verify-head-help" class="muted">
        {headInvalid
          ? 'Paste the head as the service gave it ({"seq": …, "hash": …}) or as its seq and hash.'
          : 'Given one, the log must contain that entry unchanged: the only way to tell a log rewritten from its start, or cut short.'}
      </p>
      {progress && (
        <p aria-live="polite">
          Checking entry {progress.done} of {progress.total}…
        </p>
      )}
      <ProblemNotice error={action.error} title="The log could not be fetched" />
      {result && <VerifyResult summary={result.summary} lines={result.lines} head={result.head} />}
    </section>
  );
}

/** The verifier's answer: what it checked and the head reached, or the first entry that fails and why. */
function VerifyResult({ summary, lines, head }: { summary: ExportSummary; lines: number; head: PublishedHead | undefined }) {
  if (!summary.ok && summary.failure) {
    const { failure } = summary;
    return (
      <div class="notice notice-error verify-result" role="alert">
        <strong>Not verified: the log was changed.</strong>
        <p>
          The first entry that fails is {failure.seq === null ? `line ${failure.line}` : `seq ${failure.seq}`}
          {failure.id && (
            <>
              {' '}
              (<code>{failure.id}</code>, line {failure.line})
            </>
          )}
          : {failure.reason}.
        </p>
        <p>The {summary.entries} entries before it verify.</p>
      </div>
    );
  }
  const { intents } = summary;
  return (
    <div class="notice verify-result" role="status">
      <strong>
        Verified: {summary.entries} {summary.entries === 1 ? 'entry' : 'entries'}
      </strong>
      {summary.entries !== lines && <p>The export had {lines} lines.</p>}
      <p>
        Every hash recomputes and links to the one before.{' '}
        {intents.entries === 0
          ? 'No entry carries signed intents.'
          : `${intents.entries} ${intents.entries === 1 ? 'entry carries' : 'entries carry'} signed intents: ${intents.verifiedSignatures} ${intents.verifiedSignatures === 1 ? 'signature' : 'signatures'} verified, every quorum met.`}
        {intents.needChainLookup > 0 &&
          ` ${intents.needChainLookup} contract-wallet ${intents.needChainLookup === 1 ? 'approval needs' : 'approvals need'} a lookup on its chain (EIP-1271), which this check does not make${intents.quorumsNeedingChainLookup > 0 ? `; ${intents.quorumsNeedingChainLookup} ${intents.quorumsNeedingChainLookup === 1 ? 'quorum rests' : 'quorums rest'} on them` : ''}.`}
      </p>
      {summary.preChain && (
        <p class="muted">
          The {summary.preChain.entries} entries written before the log was chained (seq {summary.preChain.firstSeq} to{' '}
          {summary.preChain.lastSeq}) are vouched for only since the upgrade.
        </p>
      )}
      {head && <p>It reaches the head you gave (seq {head.seq}) unchanged.</p>}
      <HeadToPublish seq={summary.head.seq} hash={summary.head.hash} />
    </div>
  );
}

/**
 * The head reached, to copy and publish where whoever runs the database cannot rewrite it: the
 * chain alone cannot show a log recomputed from its start, a head kept elsewhere can.
 */
function HeadToPublish({ seq, hash }: PublishedHead) {
  const [copied, setCopied] = useState<'yes' | 'failed'>();
  const value = JSON.stringify({ seq, hash });
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  return (
    <>
      <p>
        Head: seq <strong>{seq}</strong>, hash <code class="hash">{hash}</code>
      </p>
      <div class="copy-row">
        <input readOnly value={value} aria-label="Head to publish" onFocus={(event) => (event.target as HTMLInputElement).select()} />
        <button type="button" class="button" onClick={copy}>
          {copied === 'yes' ? 'Copied' : 'Copy head'}
        </button>
      </div>
      <p class="muted">
        Publish it somewhere the service's operator cannot rewrite (another system, a signed commit, a chain). Paste it here next time: the
        log must still reach it unchanged.
      </p>
      {copied === 'failed' && <p>The browser did not allow copying: select the head and copy it yourself.</p>}
    </>
  );
}
