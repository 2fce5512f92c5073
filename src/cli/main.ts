import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from '../config/config.ts';
import { redactUrlsIn } from '../config/redaction.ts';
import { isAppError } from '../errors/app-error.ts';
import type { OpenedFileServices } from '../files/file-services.ts';
import type { MetadataStore } from '../store/types.ts';
import { type Command, type OptionValues, UsageError } from './command.ts';
import { adminCommands } from './commands/admin-commands.ts';
import { backupCommands } from './commands/backup-commands.ts';
import { channelCommands } from './commands/channel-commands.ts';
import { fileCommands } from './commands/file-commands.ts';
import { scopeRestoreCommands } from './commands/scope-restore-commands.ts';
import { serveCommand } from './commands/serve-command.ts';
import { signCommand } from './commands/sign-command.ts';
import { tenantCommands } from './commands/tenant-commands.ts';

const COMMANDS: Command[] = [
  serveCommand,
  ...tenantCommands,
  ...adminCommands,
  ...channelCommands,
  ...backupCommands,
  ...fileCommands,
  ...scopeRestoreCommands,
  signCommand,
];

function findCommand(args: string[]): { command: Command; rest: string[] } {
  const words = args.filter((a, i) => !a.startsWith('-') && args.slice(0, i).every((b) => !b.startsWith('-')));
  const command = [...COMMANDS].sort((a, b) => b.words.length - a.words.length).find((c) => c.words.every((w, i) => words[i] === w));
  if (!command) throw new UsageError(args.length === 0 ? 'No command given' : `Unknown command "${words.join(' ')}"`);
  return { command, rest: args.slice(command.words.length) };
}

function usage(command?: Command): string {
  if (command) {
    const options = Object.entries(command.options).map(
      ([name, spec]) =>
        `  --${name}${spec.type === 'string' ? ` ${spec.placeholder ?? 'VALUE'}` : ''}${spec.multiple ? ' (repeatable)' : ''}${spec.required ? ' (required)' : ''}  ${spec.description}`,
    );
    return [`wallet-admin ${command.words.join(' ')}: ${command.summary}`, ...options, '  --json  Print one JSON object'].join('\n');
  }
  return [
    'Usage: wallet-admin <command> [options] [--json]',
    '',
    ...COMMANDS.map((c) => `  ${c.words.join(' ').padEnd(20)} ${c.summary}`),
    '',
    'Settings (DATA_DIR, DATABASE_URL, …) come from environment variables; see README.',
  ].join('\n');
}

function parseOptions(command: Command, rest: string[]): OptionValues {
  const options = Object.fromEntries(
    Object.entries(command.options).map(([name, spec]) => [name, { type: spec.type, multiple: spec.multiple ?? false }]),
  );
  let values: OptionValues;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { ...options, json: { type: 'boolean' }, help: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return values;
  for (const [name, spec] of Object.entries(command.options)) {
    const value = values[name];
    if (spec.required && (value === undefined || value === '')) throw new UsageError(`Missing required option --${name}`);
    if (typeof value === 'string' && value.trim() === '') throw new UsageError(`Option --${name} must not be empty`);
  }
  return values;
}

/** Runs one CLI invocation and returns the process exit code. */
export async function main(args: string[]): Promise<number> {
  const json = args.includes('--json');
  let store: MetadataStore | undefined;
  let fileServices: OpenedFileServices | undefined;
  try {
    if (args.length === 0 || args[0] === '--help' || args[0] === 'help') {
      process.stdout.write(`${usage()}\n`);
      return args.length === 0 ? 2 : 0;
    }
    const { command, rest } = findCommand(args);
    const values = parseOptions(command, rest);
    if (values.help) {
      process.stdout.write(`${usage(command)}\n`);
      return 0;
    }
    const config: Config = loadConfig(process.env);
    // The store, storage and logging modules (with Kysely, the database drivers and pino) load only
    // for a command that uses them, so that help and usage errors answer without them.
    const openStore = async (): Promise<MetadataStore> => {
      if (!store) {
        const { openMetadataStore } = await import('../store/open-metadata-store.ts');
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
    const result = await command.run({
      values,
      config,
      store: openStore,
      fileServices: async () => (fileServices ??= await openServices()),
    });
    if (result && !json && result.exact) process.stdout.write(process.stdout.isTTY ? `${result.text}\n` : result.text);
    else if (result) process.stdout.write(`${json ? JSON.stringify(result.json) : result.text}\n`);
    return 0;
  } catch (error) {
    const usageProblem = error instanceof UsageError;
    const code = isAppError(error) ? error.code : usageProblem ? 'USAGE' : error instanceof ConfigError ? 'CONFIG_INVALID' : 'FAILED';
    // Settings' messages hide credentials already; a driver's error might quote a URL of its own.
    const message = redactUrlsIn(error instanceof Error ? error.message : String(error));
    process.stderr.write(`wallet-admin: ${message}${usageProblem ? '\nRun "wallet-admin --help" for the commands.' : ''}\n`);
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    return usageProblem ? 2 : 1;
  } finally {
    await fileServices?.close();
    await store?.close();
  }
}
