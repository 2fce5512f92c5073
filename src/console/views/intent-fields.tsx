import type { TypedData } from '../approvals/types.ts';
import { Time } from '../ui/time.tsx';

/** The intent's fields a person checks, in the order the typed data lists them (docs/approvals.md). */
const CHECKED_FIELDS = ['operation', 'channel', 'scope', 'source', 'delete', 'target', 'details', 'deadline'] as const;

/**
 * What the wallet will show when asked to sign, field by field and verbatim, so that the person can
 * compare the two before signing; a channel's name and the deadline's time are added beside them,
 * never instead of them.
 */
export function IntentFields({ typedData, channelName }: { typedData: TypedData; channelName(id: string): string }) {
  const message = typedData.message;
  return (
    <dl class="facts intent-fields" aria-label="The fields your wallet signs">
      {CHECKED_FIELDS.map((field) => {
        const text = textOf(message[field]);
        return [
          <dt key={`${field}-name`}>{field}</dt>,
          <dd key={`${field}-value`}>
            {text === '' ? (
              <span class="muted">(empty)</span>
            ) : field === 'details' ? (
              <pre class="intent-details">{text}</pre>
            ) : (
              <code>{text}</code>
            )}
            {field === 'channel' && text !== '' && channelName(text) !== text && <span class="muted"> ({channelName(text)})</span>}
            {field === 'deadline' && /^\d+$/.test(text) && (
              <span class="muted">
                {' '}
                (<Time value={new Date(Number(text) * 1000)} />)
              </span>
            )}
          </dd>,
        ];
      })}
    </dl>
  );
}

function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : String(value);
}
