import type { WebhookEvent } from '../../client/index.ts';
import type { Command, OptionValues } from '../command.ts';
import { integerOption, listOption, optionalString, UsageError } from '../command.ts';
import { atMostOneOf } from '../option-checks.ts';
import { promptHidden, readOptionFile, readPipedInput } from '../secret-input.ts';
import { type TerminalText, terminalLines, terminalText } from '../terminal-text.ts';

/*
 * `webhook verify`: checks a delivery as its endpoint would, with the client's verifyWebhook, so
 * that an operator debugging a receiver can tell a signature the service made from one it did
 * not, or a body changed on the way. No store and no service: the headers, the body and the secret.
 */

/** Far beyond any event the service sends; a file larger than that is not a delivery. */
const BODY_MAX_BYTES = 4 * 1024 * 1024;
const SECRET_FILE_MAX_BYTES = 64 * 1024;
/** As verifyWebhook's own default: a delivery signed longer ago than that is refused, as a replay would be. */
const DEFAULT_TOLERANCE_SECONDS = 300;

/** `name: value`, as curl -H takes a header and as a receiver's log prints one. */
function headersOf(values: OptionValues): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  for (const header of listOption(values, 'header')) {
    const colon = header.indexOf(':');
    const name = colon > 0 ? header.slice(0, colon).trim().toLowerCase() : '';
    if (!/^[a-z0-9-]+$/.test(name)) {
      throw new UsageError(`--header must be NAME: VALUE, as 'webhook-id: msg_…' (got "${header.slice(0, 80)}")`);
    }
    headers[name] = [...(headers[name] ?? []), header.slice(colon + 1).trim()];
  }
  return headers;
}

/** The first line of what a file or stdin holds: a secret saved with a newline after it, as `echo` writes it. */
function firstLine(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  const end = text.indexOf('\n');
  return (end < 0 ? text : text.slice(0, end)).replace(/\r$/, '').trim();
}

/**
 * The endpoint's secret from --secret-env (a variable's value), --secret-file (its first line; '-'
 * stdin), --secret (in argv, where `ps` and the shell's history show it), or else a hidden prompt on
 * the terminal, as the keystore's password is asked. Never printed, whatever is refused.
 */
async function secretOf(values: OptionValues, bodyOnStdin: boolean): Promise<string> {
  atMostOneOf(values, ['secret', 'secret-env', 'secret-file']);
  const given = optionalString(values, 'secret');
  if (given !== undefined) return given.trim();
  const name = optionalString(values, 'secret-env');
  if (name !== undefined) {
    const value = process.env[name];
    if (value === undefined || value.trim() === '') throw new UsageError(`--secret-env names ${name}, which is not set`);
    return value.trim();
  }
  const file = optionalString(values, 'secret-file');
  if (file === '-' && bodyOnStdin) {
    throw new UsageError('stdin can hold the body or the secret, not both: give the body with --body-file FILE');
  }
  if (file === '-') return firstLine(await readPipedInput(process.stdin, 'the webhook secret', SECRET_FILE_MAX_BYTES));
  if (file !== undefined) return firstLine(await readOptionFile(file, 'secret-file', SECRET_FILE_MAX_BYTES));
  if (bodyOnStdin || !process.stdin.isTTY) {
    throw new UsageError("Give the endpoint's secret: --secret-env NAME, --secret-file FILE or --secret whsec_…");
  }
  return (await promptHidden(process.stdin, process.stderr, 'Webhook secret: ')).trim();
}

/** Every line of the event's data, pretty-printed, each shown safely (it quotes stored names). */
function eventText(event: WebhookEvent): TerminalText {
  const channel = event.channelId === undefined ? '' : `, channel ${event.channelId}`;
  return terminalLines([
    terminalText`Verified: event ${event.id} (${event.type}) of tenant ${event.tenantId}${channel} at ${event.time}`,
    ...JSON.stringify(event.data, null, 2)
      .split('\n')
      .map((line) => terminalText`  ${line}`),
  ]);
}

export const webhookVerifyCommand: Command = {
  words: ['webhook', 'verify'],
  summary: 'Check a delivery as its endpoint would (Standard Webhooks): print its event, or why it does not verify (exit 1)',
  modeNote: 'Runs here, on the headers, body and secret given: no store, no service.',
  options: {
    header: {
      type: 'string',
      multiple: true,
      placeholder: 'HEADER',
      description: "A header of the delivery: 'webhook-id: …', 'webhook-timestamp: …' and 'webhook-signature: …'",
    },
    'body-file': {
      type: 'string',
      placeholder: 'FILE',
      description: 'The body as received, byte for byte (default, or -: stdin)',
    },
    'secret-env': {
      type: 'string',
      placeholder: 'NAME',
      description: "The endpoint's secret (whsec_…) is this environment variable's value",
    },
    'secret-file': {
      type: 'string',
      placeholder: 'FILE',
      description: "The endpoint's secret is this file's first line (-: stdin, with --body-file)",
    },
    secret: {
      type: 'string',
      placeholder: 'whsec_…',
      description:
        "The endpoint's secret itself: visible to ps and the shell's history; prefer the two above (default: asked on the terminal)",
    },
    tolerance: {
      type: 'string',
      placeholder: 'SECONDS',
      description: `How far webhook-timestamp may lie from now (default ${DEFAULT_TOLERANCE_SECONDS}); more, to check an older delivery`,
    },
  },
  async run({ values }) {
    const headers = headersOf(values);
    const tolerance = integerOption(values, 'tolerance', { min: 0, max: 10 * 365 * 86400, fallback: DEFAULT_TOLERANCE_SECONDS });
    const bodyFile = optionalString(values, 'body-file');
    const bodyOnStdin = bodyFile === undefined || bodyFile === '-';
    const secret = await secretOf(values, bodyOnStdin);
    const body = bodyOnStdin
      ? await readPipedInput(process.stdin, 'the delivery body', BODY_MAX_BYTES)
      : await readOptionFile(bodyFile, 'body-file', BODY_MAX_BYTES);
    const { verifyWebhook, WebhookVerificationError } = await import('../../client/webhook-verifier.ts');
    let event: WebhookEvent;
    try {
      event = (await verifyWebhook(secret, headers, new Uint8Array(body), { toleranceSeconds: tolerance })) as WebhookEvent;
    } catch (error) {
      // Its reasons name headers and counts, never the secret.
      if (error instanceof WebhookVerificationError) throw new Error(`The delivery does not verify: ${error.message}`);
      throw error;
    }
    return { json: { verified: true, event: { ...event } }, text: eventText(event) };
  },
};
