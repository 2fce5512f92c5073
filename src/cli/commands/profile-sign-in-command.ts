import type { Command } from '../command.ts';
import { integerOption, optionalString, stringOption, UsageError } from '../command.ts';
import { atMostOneOf } from '../option-checks.ts';
import { profileNamed, profilesFile, readProfiles, writeProfiles } from '../remote/profiles.ts';
import { readOptionFile, readPipedInput } from '../secret-input.ts';
import { exactText, terminalText } from '../terminal-text.ts';

/** A SIWE message is a few hundred bytes. */
const MESSAGE_MAX_BYTES = 64 * 1024;
/** At most a working day: the profile keeps the message, a credential, no longer than a session needs. */
const MAX_TTL_SECONDS = 8 * 3600;

/**
 * The external-signer flow of the remote mode: a wallet the CLI cannot hold (a hardware or browser
 * wallet) signs the profile's message, and the profile keeps it for the commands that follow until
 * it expires. The message is checked here, so that a wrong wallet or service fails now, not later.
 */
export const profileSignInCommand: Command = {
  words: ['profile', 'sign-in'],
  summary: "Sign a profile in with any wallet: print the message for its service, then keep the wallet's signature of it",
  modeNote: 'Works on your profiles file; the commands run with --profile NAME then present the message until it expires.',
  options: {
    name: { type: 'string', required: true, placeholder: 'NAME', description: 'Profile name' },
    'print-message': {
      type: 'boolean',
      description: "Print the exact message for --address to sign for the profile's service (nothing else, no newline when piped)",
    },
    address: { type: 'string', placeholder: '0x…', description: 'The wallet that will sign (with --print-message)' },
    ttl: { type: 'string', placeholder: 'SECONDS', description: 'Seconds until the message expires (default 3600, at most 28800)' },
    signature: {
      type: 'string',
      placeholder: '0x…',
      description: "The wallet's personal_sign signature of the message: kept once it checks out",
    },
    'message-file': {
      type: 'string',
      placeholder: 'FILE',
      description: 'With --signature: the signed message, byte for byte (default: stdin)',
    },
  },
  async run({ values }) {
    atMostOneOf(values, ['print-message', 'signature'], true);
    const file = profilesFile(process.env);
    const profiles = await readProfiles(file);
    const name = stringOption(values, 'name');
    const profile = profileNamed(profiles, name, file);
    const service = new URL(profile.url);

    // The signing code (viem's among it) loads only for this command, as for sign.
    const [{ headersFromSignature }, { buildSignInMessage }, { isHexAddress, toEip55 }, { parseSiweMessage }] = await Promise.all([
      import('../../auth/signing/external-signature.ts'),
      import('../../auth/signing/sign-in-headers.ts'),
      import('../../auth/siwe/eip55.ts'),
      import('../../auth/siwe/siwe-message.ts'),
    ]);
    if (values['print-message'] === true) {
      const address = optionalString(values, 'address');
      if (address === undefined || !isHexAddress(address))
        throw new UsageError('--print-message needs --address 0x… (40 hexadecimal digits)');
      const message = buildSignInMessage(toEip55(address), {
        domain: service.host,
        uri: service.origin,
        ttlSeconds: integerOption(values, 'ttl', { min: 60, max: MAX_TTL_SECONDS, fallback: 3600 }),
      });
      return { json: { message }, text: exactText(message), exact: true };
    }

    const messageFile = optionalString(values, 'message-file');
    const message =
      messageFile === undefined || messageFile === '-'
        ? await readPipedInput(process.stdin, 'the signed message', MESSAGE_MAX_BYTES)
        : await readOptionFile(messageFile, 'message-file', MESSAGE_MAX_BYTES);
    const headers = headersFromSignature({ message, signature: stringOption(values, 'signature') });
    const signed = parseSiweMessage(message.toString('utf8'));
    if (signed.domain !== service.host) {
      throw new UsageError(
        `The message signs in to ${signed.domain}, not to profile ${name}'s ${service.host}: print it with --print-message`,
      );
    }
    const expiresAt = signed.expirationTime === undefined ? Number.NaN : Date.parse(signed.expirationTime);
    if (!(expiresAt > Date.now()))
      throw new UsageError('The message has expired (or names no Expiration Time): print a new one with --print-message');
    profile.signedIn = {
      headers: { 'X-WAL': headers['X-WAL'], 'X-SIG': headers['X-SIG'], 'X-MES': headers['X-MES'] },
      expiresAt: new Date(expiresAt).toISOString(),
    };
    await writeProfiles(file, profiles);
    return {
      json: { name, wallet: headers['X-WAL'], signedInUntil: profile.signedIn.expiresAt },
      text: terminalText`Profile ${name} signed in as ${headers['X-WAL']} until ${profile.signedIn.expiresAt}`,
    };
  },
};
