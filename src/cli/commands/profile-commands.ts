import path from 'node:path';
import type { Command } from '../command.ts';
import { optionalString, stringOption, UsageError } from '../command.ts';
import { type Profile, profileNamed, profilesFile, readProfiles, writeProfiles } from '../remote/profiles.ts';
import { serviceOrigin } from '../remote/service-url.ts';
import { readOptionFile } from '../secret-input.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const WHERE = 'Works on your profiles file ($XDG_CONFIG_HOME/wallet-admin/profiles.json, else ~/.config/…), mode 0600.';

function profileName(value: string): string {
  if (!NAME.test(value))
    throw new UsageError(
      `--name must be letters, digits, . _ - (at most 64), starting with a letter or digit (got "${value.slice(0, 80)}")`,
    );
  return value;
}

/** A profile as listed: where and how it signs in, and until when its kept message is good. */
function describeProfile(name: string, profile: Profile) {
  const signedIn = profile.signedIn ? `signed in until ${profile.signedIn.expiresAt}` : 'not signed in';
  return terminalText`${name}  ${profile.url}  ${profile.keystore ?? 'no keystore'}  (${signedIn})`;
}

/** The shape of a profile in --json: never its signed message, which is a credential. */
function profileJson(name: string, profile: Profile) {
  const { signedIn, ...settings } = profile;
  return { name, ...settings, signedInUntil: signedIn?.expiresAt ?? null };
}

/** Profiles keep a service's URL and a keystore for the commands that run over HTTP (--profile NAME). */
export const profileCommands: Command[] = [
  {
    words: ['profile', 'save'],
    summary: 'Save (or replace) a profile: a service URL and the keystore to sign in with, for --profile NAME',
    modeNote: WHERE,
    options: {
      name: { type: 'string', required: true, placeholder: 'NAME', description: 'Profile name' },
      url: {
        type: 'string',
        required: true,
        placeholder: 'URL',
        description: "The service's origin: https://…, or http:// only to this machine",
      },
      keystore: {
        type: 'string',
        placeholder: 'FILE',
        description: 'The Ethereum JSON keystore v3 file that signs (kept as its absolute path)',
      },
      'password-file': {
        type: 'string',
        placeholder: 'FILE',
        description: "Read the keystore's password from this file's first line (its path is kept, never the password)",
      },
      'password-env': {
        type: 'string',
        placeholder: 'NAME',
        description: "Read the keystore's password from this environment variable (default: asked on the terminal)",
      },
    },
    async run({ values }) {
      const name = profileName(stringOption(values, 'name'));
      const url = serviceOrigin(stringOption(values, 'url'), 'url');
      const keystore = optionalString(values, 'keystore');
      const passwordFile = optionalString(values, 'password-file');
      const passwordEnv = optionalString(values, 'password-env');
      if (passwordFile !== undefined && passwordEnv !== undefined) throw new UsageError('Give --password-file or --password-env, not both');
      // A keystore that cannot be read or is no keystore is refused now, not at the first command that needs it.
      if (keystore !== undefined) {
        const { KEYSTORE_MAX_BYTES, parseKeystore } = await import('../../auth/signing/keystore.ts');
        parseKeystore((await readOptionFile(keystore, 'keystore', KEYSTORE_MAX_BYTES)).toString('utf8'));
      }
      const profile: Profile = {
        url,
        ...(keystore === undefined ? {} : { keystore: path.resolve(keystore) }),
        ...(passwordFile === undefined ? {} : { passwordFile: path.resolve(passwordFile) }),
        ...(passwordEnv === undefined ? {} : { passwordEnv }),
      };
      const file = profilesFile(process.env);
      const profiles = await readProfiles(file);
      // A replaced profile starts signed out: its kept message was for what it pointed at before.
      profiles[name] = profile;
      await writeProfiles(file, profiles);
      return { json: { file, ...profileJson(name, profile) }, text: terminalText`Saved profile ${name} in ${file}: ${url}` };
    },
  },
  {
    words: ['profile', 'list'],
    summary: 'The saved profiles, and which holds a signed message still valid',
    modeNote: WHERE,
    options: {},
    async run() {
      const file = profilesFile(process.env);
      const profiles = Object.entries(await readProfiles(file));
      const lines = profiles.map(([name, profile]) => describeProfile(name, profile));
      return {
        json: { file, items: profiles.map(([name, profile]) => profileJson(name, profile)) },
        text: lines.length > 0 ? terminalLines(lines) : terminalText`No profiles in ${file}`,
      };
    },
  },
  {
    words: ['profile', 'remove'],
    summary: 'Remove a profile, and the signed message it kept',
    modeNote: WHERE,
    options: { name: { type: 'string', required: true, placeholder: 'NAME', description: 'Profile name' } },
    async run({ values }) {
      const name = stringOption(values, 'name');
      const file = profilesFile(process.env);
      const profiles = await readProfiles(file);
      profileNamed(profiles, name, file);
      delete profiles[name];
      await writeProfiles(file, profiles);
      return { json: { name, removed: true }, text: terminalText`Removed profile ${name} from ${file}` };
    },
  },
];
