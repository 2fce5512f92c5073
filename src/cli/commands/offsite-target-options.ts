import { parseRecipient } from '../../age/age-keys.ts';
import type { TenantOffsiteSettings } from '../../client/index.ts';
import { parseOffsiteUrl } from '../../config/offsite-url.ts';
import { listOption, type OptionSpec, type OptionValues, optionalString, stringOption, UsageError } from '../command.ts';
import { atMostOneOf } from '../option-checks.ts';
import { promptHidden, readOptionFile, readPipedInput } from '../secret-input.ts';

/*
 * The options of `offsite target set`, checked here before anything is read, signed or sent, so
 * that a refusal names the option typed (--to, --recipient) rather than the API's member (url,
 * recipients). The service checks them all again, and what only it can (the addresses it may reach,
 * the buckets taken). The bucket key's secret never comes from argv, where `ps` and the shell's
 * history show it, and is never printed, whatever is refused.
 */

const SECRET_FILE_MAX_BYTES = 64 * 1024;
const RECIPIENTS_FILE_MAX_BYTES = 64 * 1024;
/** The service's bounds (TenantOffsiteBody, tenant-offsite-service.ts). */
const MAX_RECIPIENTS = 20;
const REGION = /^[a-z0-9-]{1,50}$/;

export const tenantOption: OptionSpec = {
  type: 'string',
  required: true,
  placeholder: 'ID',
  description: "The tenant (t_…) whose own target this is (over HTTP: the signed-in admin's)",
  only: 'local',
};

export const setOptions = {
  tenant: tenantOption,
  to: {
    type: 'string',
    required: true,
    placeholder: 'URL',
    description: "Where the tenant's copy goes: s3://bucket/prefix, a bucket the tenant owns (not --url: that is the service's)",
  },
  endpoint: {
    type: 'string',
    placeholder: 'URL',
    description:
      "An S3-compatible store's URL, https://host[:port] (default: AWS S3 in --region); a public address unless OUTBOUND_ALLOW lists it",
  },
  region: { type: 'string', placeholder: 'NAME', description: "The bucket's region (default us-east-1)" },
  'force-path-style': {
    type: 'boolean',
    description: 'Path-style requests (https://host/bucket/key), as MinIO and most S3-compatible stores want',
  },
  'access-key-id': {
    type: 'string',
    required: true,
    placeholder: 'ID',
    description: "The bucket key's id: it needs to write, read and list, and should not delete",
  },
  'secret-access-key-file': {
    type: 'string',
    placeholder: 'FILE',
    description: "The key's secret is this file's first line ('-': stdin); never an argument, never printed",
  },
  'secret-access-key-env': {
    type: 'string',
    placeholder: 'NAME',
    description: "The key's secret is this environment variable's value (default: asked on the terminal)",
  },
  recipient: {
    type: 'string',
    multiple: true,
    placeholder: 'age1…',
    description: 'An age recipient the copy is encrypted to: only its identity reads it (age-keygen -y prints it)',
  },
  'recipients-file': {
    type: 'string',
    placeholder: 'FILE',
    description: 'age recipients, one a line (# comments), as age -R reads them; with --recipient, both',
  },
} as const satisfies Record<string, OptionSpec>;

/** The recipients given: each an age X25519 recipient, never an identity, 1 to 20 of them, each once. */
async function recipientsOf(values: OptionValues): Promise<string[]> {
  const given = listOption(values, 'recipient').map((text) => ({ text: text.trim(), from: '--recipient' }));
  const file = optionalString(values, 'recipients-file');
  if (file !== undefined) {
    const lines = (await readOptionFile(file, 'recipients-file', RECIPIENTS_FILE_MAX_BYTES)).toString('utf8').split(/\r?\n/);
    for (const line of lines) {
      for (const text of line.replace(/#.*$/, '').split(/[\s,]+/)) if (text !== '') given.push({ text, from: `--recipients-file ${file}` });
    }
  }
  if (given.length === 0) {
    throw new UsageError('Give the age recipients the copy is encrypted to: --recipient age1… (repeatable) or --recipients-file FILE');
  }
  for (const { text, from } of given) {
    // An identity given by mistake is a secret: named as one, never quoted.
    if (/^AGE-SECRET-KEY-/i.test(text)) {
      throw new UsageError(
        `${from} holds an age identity (AGE-SECRET-KEY-…): give its recipient (age-keygen -y FILE), and keep the identity`,
      );
    }
    try {
      parseRecipient(text);
    } catch (error) {
      throw new UsageError(`${from}: ${(error as Error).message}`);
    }
  }
  const recipients = [...new Set(given.map((r) => r.text))];
  if (recipients.length > MAX_RECIPIENTS) throw new UsageError(`Give at most ${MAX_RECIPIENTS} recipients (got ${recipients.length})`);
  return recipients;
}

/** The first line of what a file or stdin holds: a secret saved with a newline after it, as `echo` writes it. */
function firstLine(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  const end = text.indexOf('\n');
  return (end < 0 ? text : text.slice(0, end)).replace(/\r$/, '').trim();
}

/**
 * The bucket key's secret from --secret-access-key-env (a variable's value), --secret-access-key-file
 * (its first line; '-' stdin), or else a hidden prompt on the terminal, as webhook verify reads an
 * endpoint's secret. Without a terminal and a source it is a usage error, never a wait on a stdin
 * nobody types into.
 */
async function secretOf(values: OptionValues): Promise<string> {
  atMostOneOf(values, ['secret-access-key-env', 'secret-access-key-file']);
  let secret: string;
  const name = optionalString(values, 'secret-access-key-env');
  const file = optionalString(values, 'secret-access-key-file');
  if (name !== undefined) {
    const value = process.env[name];
    if (value === undefined) throw new UsageError(`--secret-access-key-env names ${name}, which is not set`);
    secret = value.trim();
  } else if (file === '-') {
    secret = firstLine(await readPipedInput(process.stdin, "the bucket key's secret", SECRET_FILE_MAX_BYTES));
  } else if (file !== undefined) {
    secret = firstLine(await readOptionFile(file, 'secret-access-key-file', SECRET_FILE_MAX_BYTES));
  } else if (process.stdin.isTTY) {
    secret = (await promptHidden(process.stdin, process.stderr, "The bucket key's secret: ")).trim();
  } else {
    throw new UsageError(
      "Give the bucket key's secret: --secret-access-key-env NAME or --secret-access-key-file FILE ('-': stdin); it is never taken as an argument",
    );
  }
  if (secret === '') throw new UsageError("The bucket key's secret is empty");
  return secret;
}

/** --to: the tenant's bucket, s3://bucket/prefix; the service's own check, in the option's name. */
function bucketUrlOf(values: OptionValues): string {
  const url = stringOption(values, 'to');
  let parsed: ReturnType<typeof parseOffsiteUrl>;
  try {
    parsed = parseOffsiteUrl(url);
  } catch (error) {
    throw new UsageError(`--to ${(error as Error).message.replace(/^OFFSITE_URL /, '')}`);
  }
  if (parsed.kind !== 's3') throw new UsageError("--to must be the tenant's bucket, s3://bucket/prefix (a file:// copy is the operator's)");
  return url;
}

/** --endpoint: an origin alone (https://host[:port]); the addresses it may reach are the service's to check. */
function endpointOf(values: OptionValues): string | undefined {
  const endpoint = optionalString(values, 'endpoint');
  if (endpoint === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  const originOnly =
    url !== undefined &&
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.password === '' &&
    url.search === '' &&
    url.hash === '' &&
    (url.pathname === '/' || url.pathname === '');
  if (!originOnly) {
    throw new UsageError(`--endpoint must be the S3 store's URL alone, https://host[:port] (got "${endpoint.slice(0, 80)}")`);
  }
  return endpoint;
}

/** What `offsite target set` sends (or, locally, checks and seals): every option checked, the secret read last. */
export async function settingsOf(values: OptionValues): Promise<TenantOffsiteSettings> {
  const url = bucketUrlOf(values);
  const endpoint = endpointOf(values);
  const region = optionalString(values, 'region');
  if (region !== undefined && !REGION.test(region)) {
    throw new UsageError(`--region must be an S3 region name such as eu-central-1 (got "${region.slice(0, 60)}")`);
  }
  const recipients = await recipientsOf(values);
  const accessKeyId = stringOption(values, 'access-key-id').trim();
  return {
    url,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(region === undefined ? {} : { region }),
    ...(values['force-path-style'] === true ? { forcePathStyle: true } : {}),
    accessKeyId,
    secretAccessKey: await secretOf(values),
    recipients,
  };
}
