import { parseArgs } from 'node:util';
import { HeldForApproval, ProblemError } from '../client/errors.ts';
import { type Config, ConfigError, loadConfig } from '../config/config.ts';
import { redactCredentialsIn } from '../config/redaction.ts';
import { isAppError } from '../errors/app-error.ts';
import type { OpenedFileServices } from '../files/file-services.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import { SERVICE_VERSION } from '../version.ts';
import { type Command, type CommandResult, type OptionValues, UsageError } from './command.ts';
import { COMMANDS } from './command-table.ts';
import { commandHelp, commandList, groupHelp } from './help.ts';
import { checkModeOptions, modeOf, optionsOf, refuseRemoteOptions } from './modes.ts';
import { inOptionNames } from './option-names.ts';
import { terminalJson, terminalLines, terminalText } from './terminal-text.ts';

/** A request a policy holds (a proposal was made, nothing done yet): neither success (0) nor refusal (1, 2). */
const HELD_EXIT_CODE = 3;

const HELP_FLAGS = new Set(['-h', '--help']);

/**
 * Refusals of a value's shape, by whichever layer noticed: the CLI passes its options on as given,
 * so these are a malformed option, wrong use of the CLI (exit 2) like the ones it checks itself.
 */
const MALFORMED_INPUT = new Set(['VALIDATION_FAILED', 'INVALID_TIMESTAMP', 'INVALID_PATH']);

/** The leading words of the arguments, up to the first option: the command, or a group of commands. */
function leadingWords(args: string[]): string[] {
  const firstOption = args.findIndex((a) => a.startsWith('-'));
  return firstOption === -1 ? args : args.slice(0, firstOption);
}

type Found = { command: Command; rest: string[] } | { group: string[]; commands: Command[] };

function findCommand(args: string[]): Found {
  const words = leadingWords(args);
  const command = [...COMMANDS].sort((a, b) => b.words.length - a.words.length).find((c) => c.words.every((w, i) => words[i] === w));
  if (command) return { command, rest: args.slice(command.words.length) };
  // The longest run of words that begins some commands (tenant, tenant feature): a group.
  for (let length = words.length; length > 0; length--) {
    const group = words.slice(0, length);
    const commands = COMMANDS.filter((c) => c.words.length > length && group.every((w, i) => c.words[i] === w));
    if (commands.length > 0) {
      if (length < words.length)
        throw new UsageError(
          `Unknown command "${words.join(' ')}"; the subcommands of "${group.join(' ')}" are ${commands.map((c) => c.words.slice(length).join(' ')).join(', ')}`,
        );
      return { group, commands };
    }
  }
  throw new UsageError(`Unknown command "${words.join(' ')}"`);
}

function parseOptions(command: Command, rest: string[]): OptionValues {
  refuseRemoteOptions(command, rest);
  const options = Object.fromEntries(
    Object.entries(optionsOf(command)).map(([name, spec]) => [name, { type: spec.type, multiple: spec.multiple ?? false }]),
  );
  let values: OptionValues;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: {
        ...options,
        ...(command.printsJson === false ? {} : { json: { type: 'boolean' } }),
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: command.positional !== undefined,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\. To specify a positional argument.*$/s, '')}`, command);
  }
  // The one command word that names a file (audit verify FILE) is its option's value, given either way once.
  if (command.positional !== undefined && positionals.length > 0) {
    if (positionals.length > 1 || values[command.positional] !== undefined) {
      throw new UsageError(
        `Give one ${command.options[command.positional]?.placeholder ?? 'value'}, as --${command.positional} or after the command`,
        command,
      );
    }
    values[command.positional] = positionals[0];
  }
  return values;
}

/** Runs one CLI invocation and returns the process exit code. */
export async function main(args: string[]): Promise<number> {
  let json = args.includes('--json');
  let running: Command | undefined;
  try {
    if (args.length === 0 || HELP_FLAGS.has(args[0]!) || args[0] === 'help') {
      process.stdout.write(`${commandList(COMMANDS)}\n`);
      return args.length === 0 ? 2 : 0;
    }
    if (args[0] === '--version') {
      process.stdout.write(`${SERVICE_VERSION}\n`);
      return 0;
    }
    const found = findCommand(args);
    if ('group' in found) {
      // `wallet-admin tenant` alone is a question too, but an incomplete command: exit 2 after the answer.
      const asked = args.some((a) => HELP_FLAGS.has(a));
      (asked ? process.stdout : process.stderr).write(`${groupHelp(found.group, found.commands)}\n`);
      return asked ? 0 : 2;
    }
    const { command, rest } = found;
    running = command;
    // serve takes no --json: its refusal of one is no JSON either.
    if (command.printsJson === false) json = false;
    const values = parseOptions(command, rest);
    if (values.help) {
      process.stdout.write(`${commandHelp(command)}\n`);
      return 0;
    }
    const mode = modeOf(command, values);
    checkModeOptions(command, values, mode);
    const result = mode === 'remote' ? await runRemotely(command, values) : await runLocally(command, values);
    if (result && !json && result.exact) process.stdout.write(process.stdout.isTTY ? `${result.text}\n` : result.text);
    else if (result) process.stdout.write(`${json ? terminalJson(result.json) : result.text}\n`);
    return 0;
  } catch (error) {
    // Not a refusal, and not done either: a policy holds it until enough admins sign (docs/approvals.md).
    if (error instanceof HeldForApproval) {
      const { proposal } = error;
      const text = terminalText`Held for approval: proposal ${proposal.id} (${proposal.summary}) needs intents from ${String(proposal.required)} admins holding ${proposal.permission}; nothing was done yet.`;
      process.stdout.write(`${json ? terminalJson({ held: proposal }) : text}\n`);
      return HELD_EXIT_CODE;
    }
    // The service's refusals over HTTP carry the same stable codes as the store's here.
    const failure = isAppError(error) || error instanceof ProblemError ? error.code : undefined;
    const usageProblem = error instanceof UsageError || (failure !== undefined && MALFORMED_INPUT.has(failure));
    const code = failure ?? (usageProblem ? 'USAGE' : error instanceof ConfigError ? 'CONFIG_INVALID' : 'FAILED');
    // Settings' messages hide credentials already; a driver's error might quote a URL of its own.
    let message = redactCredentialsIn(error instanceof Error ? error.message : String(error));
    if (failure !== undefined && running) message = inOptionNames(message, Object.keys(optionsOf(running)));
    const helpFor = error instanceof UsageError ? (error.command ?? running) : running;
    const hint = !usageProblem
      ? ''
      : helpFor
        ? `\nRun "wallet-admin ${helpFor.words.join(' ')} --help" for its options.`
        : '\nRun "wallet-admin --help" for the commands.';
    // A refusal may quote a stored name or an option as typed: each line shown as one, hidden characters revealed.
    const [first, ...more] = messageLines(error, message);
    const refusal = terminalLines([terminalText`wallet-admin: ${first}`, ...more.map((line) => terminalText`${line}`)]);
    process.stderr.write(`${refusal}${hint}\n`);
    if (json) process.stdout.write(`${terminalJson({ error: { code, message } })}\n`);
    return usageProblem ? 2 : 1;
  }
}

/**
 * The lines of a refusal. A message written in lines of the CLI's own (the settings' problems, a
 * port in use and what to do: an error's `lines`) keeps its line breaks; any other is one line, and
 * a break in it, which only a value it quotes can hold, is shown escaped rather than faking a line.
 */
function messageLines(error: unknown, message: string): string[] {
  const lines = (error as { lines?: unknown } | null | undefined)?.lines;
  if (!Array.isArray(lines) || lines.length === 0) return [message];
  return lines.map((line) => redactCredentialsIn(String(line)));
}

/** Over HTTP: no settings and no store, only the service's URL and the admin's wallet. */
async function runRemotely(command: Command, values: OptionValues): Promise<CommandResult> {
  const { runRemote } = await import('./remote/remote-run.ts');
  return runRemote(command, values);
}

/** On DATA_DIR / DATABASE_URL, as the operator: the store and file services opened on first use, closed after. */
async function runLocally(command: Command, values: OptionValues): Promise<CommandResult | undefined> {
  let store: MetadataStore | undefined;
  let fileServices: OpenedFileServices | undefined;
  try {
    const config: Config = loadConfig(process.env);
    // The store, storage and logging modules (with Kysely, the database drivers and pino) load only
    // for a command that uses them, so that help and usage errors answer without them.
    const openStore = async (): Promise<MetadataStore> => {
      if (!store) {
        const { openMetadataStore } = await import('../metadata/open-metadata-store.ts');
        store = await openMetadataStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      }
      return store;
    };
    const openServices = async (): Promise<OpenedFileServices> => {
      const [{ openFileServices }, { createLogger }] = await Promise.all([
        import('../files/file-services.ts'),
        import('../logging/logger.ts'),
      ]);
      // Warnings (an audit entry that could not be written) go to stderr; stdout stays the result.
      // No recovery: a server may be writing beside the CLI.
      return openFileServices(config, (await openStore()).files, createLogger('warn', process.stderr), { recover: false });
    };
    const operator = { adminId: null, operator: config.operatorLabel };
    const openDirectory = async () => {
      const [{ DirectoryChanges }, { AdministrationAudit }] = await Promise.all([
        import('../administration/directory-changes.ts'),
        import('../administration/administration-audit.ts'),
      ]);
      const opened = await openStore();
      return new DirectoryChanges(opened, new AdministrationAudit(opened.files), operator);
    };
    return await command.run!({
      values,
      config,
      store: openStore,
      fileServices: async () => (fileServices ??= await openServices()),
      directory: openDirectory,
      operator,
    });
  } finally {
    await fileServices?.close();
    await store?.close();
  }
}
