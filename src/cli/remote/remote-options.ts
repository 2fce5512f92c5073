import type { OptionSpec } from '../command.ts';

/** The options every command that runs over HTTP takes: where the service is, and the wallet that signs. */
export const REMOTE_OPTIONS: Record<string, OptionSpec> = {
  url: {
    type: 'string',
    placeholder: 'URL',
    description: "Run over HTTP against this service's origin (https://…; http:// only to this machine), as the admin --keystore signs for",
    only: 'remote',
  },
  profile: {
    type: 'string',
    placeholder: 'NAME',
    description: 'Run over HTTP with a saved profile: its URL and keystore (see: wallet-admin profile save --help)',
    only: 'remote',
  },
  keystore: {
    type: 'string',
    placeholder: 'FILE',
    description: "Sign in with the key in this Ethereum JSON keystore v3 file (default: the profile's)",
    only: 'remote',
  },
  'password-file': {
    type: 'string',
    placeholder: 'FILE',
    description: "The keystore's password is this file's first line",
    only: 'remote',
  },
  'password-env': {
    type: 'string',
    placeholder: 'NAME',
    description: "The keystore's password is this environment variable's value (default: asked on the terminal)",
    only: 'remote',
  },
};
