import path from 'node:path';
import { createClient, type SignedIn, type WalletAdminClient } from '../../client/index.ts';
import { type Command, type CommandResult, type OptionValues, optionalString, UsageError } from '../command.ts';
import { keystoreSigner } from './keystore-signer.ts';
import { type Profile, profileNamed, profilesFile, readProfiles, writeProfiles } from './profiles.ts';
import { serviceOrigin } from './service-url.ts';

/** A CLI message lives an hour: long enough for a session of commands, short for a credential kept in a file. */
const MESSAGE_SECONDS = 3600;

/** Where to go and how to sign: the options given, else the profile's. */
interface Target {
  url: string;
  keystore: string;
  passwordFile?: string;
  passwordEnv?: string;
  /** The profile's name and file, to keep the signed message in. */
  profile?: { name: string; file: string };
  resume?: SignedIn;
}

async function targetOf(values: OptionValues): Promise<Target> {
  const profileName = optionalString(values, 'profile');
  const file = profilesFile(process.env);
  const profile: Profile | undefined = profileName === undefined ? undefined : profileNamed(await readProfiles(file), profileName, file);
  const url = optionalString(values, 'url');
  const keystore = optionalString(values, 'keystore');
  const passwordFile = optionalString(values, 'password-file');
  const passwordEnv = optionalString(values, 'password-env');
  const signingGiven = keystore !== undefined || passwordFile !== undefined || passwordEnv !== undefined;
  const chosenKeystore = keystore ?? profile?.keystore;
  if (chosenKeystore === undefined) {
    throw new UsageError(
      profileName === undefined
        ? 'Over HTTP, say which wallet signs: --keystore FILE'
        : `Profile "${profileName}" names no keystore: add --keystore FILE`,
    );
  }
  // A message the profile kept is presented only for its own service and wallet.
  const kept = url === undefined && keystore === undefined ? profile?.signedIn : undefined;
  return {
    url: serviceOrigin(url ?? profile!.url, url === undefined ? 'profile' : 'url'),
    keystore: chosenKeystore,
    ...(signingGiven ? { passwordFile, passwordEnv } : { passwordFile: profile?.passwordFile, passwordEnv: profile?.passwordEnv }),
    ...(profileName === undefined ? {} : { profile: { name: profileName, file } }),
    ...(kept ? { resume: { headers: kept.headers, expiresAt: new Date(kept.expiresAt) } } : {}),
  };
}

/** Keeps the message in use in the profile (or forgets the profile's, when none is in use). */
async function keepMessage(target: Target, client: WalletAdminClient): Promise<void> {
  if (!target.profile) return;
  const signedIn = await client.signedIn();
  const { name, file } = target.profile;
  const profiles = await readProfiles(file);
  const profile = profiles[name];
  // Removed or pointed elsewhere meanwhile (another command): its message is not this one's to set.
  if (
    !profile ||
    serviceOrigin(profile.url, 'profile') !== target.url ||
    path.resolve(profile.keystore ?? '') !== path.resolve(target.keystore)
  )
    return;
  if (signedIn) profile.signedIn = { headers: signedIn.headers, expiresAt: signedIn.expiresAt.toISOString() };
  else delete profile.signedIn;
  await writeProfiles(file, profiles);
}

/** Runs a command over HTTP: the client signs in with the keystore on first use, and the profile keeps its message. */
export async function runRemote(command: Command, values: OptionValues): Promise<CommandResult> {
  const target = await targetOf(values);
  let client: WalletAdminClient | undefined;
  const open = async (): Promise<WalletAdminClient> => {
    const signer = await keystoreSigner(target.keystore, { file: target.passwordFile, env: target.passwordEnv });
    return createClient({
      baseUrl: target.url,
      signer,
      lifetimeSeconds: MESSAGE_SECONDS,
      ...(target.resume ? { resume: target.resume } : {}),
    });
  };
  try {
    return await command.remote!({ values, client: async () => (client ??= await open()) });
  } finally {
    if (client) await keepMessage(target, client);
  }
}
