import { type Command, type Mode, type OptionSpec, type OptionValues, UsageError } from './command.ts';
import { REMOTE_OPTIONS } from './remote/remote-options.ts';

/*
 * A command runs locally (on DATA_DIR / DATABASE_URL, as the operator) or, given --url or --profile,
 * over HTTP as a signed-in admin. The same words and option names serve both; an option of one mode
 * only is refused in the other, so that it is never silently ignored.
 */

/** Every option of the command: its own, and the remote mode's when it runs over HTTP. */
export function optionsOf(command: Command): Record<string, OptionSpec> {
  return command.remote ? { ...command.options, ...REMOTE_OPTIONS } : command.options;
}

/** What `wallet-admin CMD --help` says of where the command runs. */
export function modeNote(command: Command): string | undefined {
  if (command.modeNote !== undefined) return command.modeNote;
  if (command.run && command.remote) {
    return 'Runs locally (DATA_DIR / DATABASE_URL, as the operator), or over HTTP with --url or --profile, as the admin whose wallet signs.';
  }
  if (command.remote) return 'Runs over HTTP only (give --url or --profile), as the admin whose wallet signs.';
  if (command.printsJson === false) return undefined;
  return 'Runs locally only (DATA_DIR / DATABASE_URL).';
}

/** The mark of an option of one mode only, for --help. */
export function modeMark(spec: OptionSpec): string {
  return spec.only === 'local' ? 'local only' : spec.only === 'remote' ? 'over HTTP only' : '';
}

/** A local-only command given --url or --profile: said plainly, not as an unknown option. */
export function refuseRemoteOptions(command: Command, args: readonly string[]): void {
  const options = optionsOf(command);
  const asked = args.find((arg) => /^--(url|profile)(=|$)/.test(arg));
  if (asked === undefined || asked.slice(2).split('=')[0]! in options) return;
  throw new UsageError(
    `"wallet-admin ${command.words.join(' ')}" runs locally only, on DATA_DIR / DATABASE_URL: it takes no --url or --profile`,
    command,
  );
}

/** The mode asked for, once the command is known to have it. */
export function modeOf(command: Command, values: OptionValues): Mode {
  const mode: Mode = command.remote && (values.url !== undefined || values.profile !== undefined) ? 'remote' : 'local';
  if (mode === 'local' && !command.run) {
    throw new UsageError(
      `"wallet-admin ${command.words.join(' ')}" runs over HTTP only: give --url URL or --profile NAME (see: wallet-admin profile save --help)`,
      command,
    );
  }
  return mode;
}

/** Required options of the mode present, none of the other mode's given, and no empty value. */
export function checkModeOptions(command: Command, values: OptionValues, mode: Mode): void {
  for (const [name, spec] of Object.entries(optionsOf(command))) {
    const value = values[name];
    const given = value !== undefined;
    if (spec.only !== undefined && spec.only !== mode && given) {
      throw new UsageError(
        mode === 'remote'
          ? `--${name} works locally only (on DATA_DIR / DATABASE_URL), not over HTTP`
          : `--${name} goes with --url or --profile (over HTTP)`,
        command,
      );
    }
    const inMode = spec.only === undefined || spec.only === mode;
    if (inMode && spec.required && (!given || value === '')) throw new UsageError(`Missing required option --${name}`, command);
    if (typeof value === 'string' && value.trim() === '') throw new UsageError(`Option --${name} must not be empty`, command);
  }
}
