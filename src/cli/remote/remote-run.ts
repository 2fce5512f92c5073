import { createClient, type SignedIn, type WalletAdminClient, type WalletSigner } from '../../client/index.ts';
import { type Command, type CommandResult, type OptionValues, optionalString, UsageError } from '../command.ts';
import { keystoreSigner } from './keystore-signer.ts';
import { type Profile, profileNamed, profilesFile, readProfiles, writeProfiles } from './profiles.ts';
import { serviceOrigin } from './service-url.ts';

/** A CLI message lives an hour: long enough for a session of commands, short for a credential kept in a file. */
const MESSAGE_SECONDS = 3600;

/** Where to go and how to sign: the options given, else the profile's. */
interface Target {
  url: string;
  /** Absent for a profile signed in with another wallet (profile sign-in): its kept message is all there is. */
  keystore?: string;
  passwordFile?: string;
  passwordEnv?: string;
  /** The profile's name and file, to keep the signed message in: only when no option overrode its URL or keystore. */
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
  // The profile keeps (and presents) a message only for its own service and wallet, not for one an option overrides.
  const asSaved = profile !== undefined && url === undefined && keystore === undefined;
  const kept = asSaved ? profile.signedIn : undefined;
  if (chosenKeystore === undefined && kept === undefined) {
    throw new UsageError(
      profileName === undefined
        ? 'Over HTTP, say which wallet signs: --keystore FILE'
        : `Profile "${profileName}" names no keystore and holds no signed message: add --keystore FILE, or sign it in (wallet-admin profile sign-in --help)`,
    );
  }
  return {
    url: serviceOrigin(url ?? profile!.url, url === undefined ? 'profile' : 'url'),
    ...(chosenKeystore === undefined ? {} : { keystore: chosenKeystore }),
    ...(signingGiven ? { passwordFile, passwordEnv } : { passwordFile: profile?.passwordFile, passwordEnv: profile?.passwordEnv }),
    ...(asSaved ? { profile: { name: profileName!, file } } : {}),
    ...(kept ? { resume: { headers: kept.headers, expiresAt: new Date(kept.expiresAt) } } : {}),
  };
}

/** A profile signed in by another wallet: its message's address, and no way to sign a new one but to ask the user. */
function keptMessageOnly(target: Target): WalletSigner {
  const wallet = target.resume!.headers['X-WAL'];
  return {
    getAddress: async () => wallet,
    getChainId: async () => 1,
    signMessage: async () => {
      throw new UsageError(
        `The message profile ${target.profile!.name} kept is due for renewal or was refused: sign it in again (wallet-admin profile sign-in --help), or give --keystore`,
      );
    },
  };
}

/** Keeps the message in use in the profile (or forgets the profile's, when none is in use). */
async function keepMessage(target: Target, client: WalletAdminClient): Promise<void> {
  if (!target.profile) return;
  const signedIn = await client.signedIn();
  const { name, file } = target.profile;
  const profiles = await readProfiles(file);
  const profile = profiles[name];
  // Removed or pointed elsewhere meanwhile (by another command): its message is not this one's to set.
  if (!profile || serviceOrigin(profile.url, 'profile') !== target.url || profile.keystore !== target.keystore) return;
  if (signedIn) profile.signedIn = { headers: signedIn.headers, expiresAt: signedIn.expiresAt.toISOString() };
  else delete profile.signedIn;
  await writeProfiles(file, profiles);
}

/** Runs a command over HTTP: the client signs in with the keystore on first use, and the profile keeps its message. */
export async function runRemote(command: Command, values: OptionValues): Promise<CommandResult> {
  const target = await targetOf(values);
  let client: WalletAdminClient | undefined;
  let signer: Promise<WalletSigner> | undefined;
  // One signer for the sign-in and for an intent: its keystore's password is asked once.
  const walletSigner = (): Promise<WalletSigner> =>
    (signer ??=
      target.keystore === undefined
        ? Promise.resolve(keptMessageOnly(target))
        : keystoreSigner(target.keystore, { file: target.passwordFile, env: target.passwordEnv }));
  const open = async (): Promise<WalletAdminClient> =>
    createClient({
      baseUrl: target.url,
      signer: await walletSigner(),
      lifetimeSeconds: MESSAGE_SECONDS,
      ...(target.resume ? { resume: target.resume } : {}),
    });
  try {
    return await command.remote!({ values, client: async () => (client ??= await open()), signer: walletSigner });
  } catch (error) {
    throw unreachable(error, target.url) ?? error;
  } finally {
    if (client) await keepMessage(target, client);
  }
}

/** fetch says only "fetch failed" when the service cannot be reached: say where, and why (ECONNREFUSED, ENOTFOUND…). */
function unreachable(error: unknown, url: string): Error | undefined {
  if (!(error instanceof TypeError) || error.message !== 'fetch failed') return undefined;
  const cause = error.cause as NodeJS.ErrnoException | undefined;
  return new Error(`Cannot reach ${url}: ${cause?.code ?? cause?.message ?? 'no answer'}`);
}
