import type { Command } from './command.ts';
import { modeMark, modeNote, optionsOf } from './modes.ts';

/** What `--help` prints: the commands, a group's subcommands, or one command's options. */

const JSON_LINE = '  --json                   print one JSON object (on failure: {"error": {"code", "message"}})';
const HELP_LINE = '  -h, --help               show this help';

export function commandList(commands: readonly Command[]): string {
  return [
    'Usage: wallet-admin <command> [options] [--json]',
    '       wallet-admin <command> --help      the options of a command',
    '       wallet-admin --version',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.words.join(' ').padEnd(25)} ${c.summary}${listedMode(c)}`),
    '',
    'Settings (DATA_DIR, DATABASE_URL, …) come from environment variables: wallet-admin serve --help lists them.',
    'Commands marked "over HTTP" run from an admin\'s own machine with --url URL or --profile NAME, signing with',
    '--keystore FILE (those marked "only", there alone); the others run locally only, on DATA_DIR / DATABASE_URL.',
  ].join('\n');
}

export function groupHelp(group: string[], commands: readonly Command[]): string {
  const name = group.join(' ');
  return [
    `Usage: wallet-admin ${name} <subcommand> [options] [--json]`,
    '',
    'Subcommands:',
    ...commands.map((c) => `  ${c.words.slice(group.length).join(' ').padEnd(19)} ${c.summary}${listedMode(c)}`),
    '',
    `wallet-admin ${name} <subcommand> --help shows its options.`,
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const options = Object.entries(optionsOf(command)).map(([name, spec]) => {
    const flag = `--${name}${spec.type === 'string' ? ` ${spec.placeholder ?? 'VALUE'}` : ''}`;
    const marks = [spec.required ? 'required' : '', spec.multiple ? 'repeatable' : '', modeMark(spec)].filter(Boolean).join(', ');
    return `  ${flag.padEnd(24)} ${spec.description}${marks ? ` (${marks})` : ''}`;
  });
  return [
    `Usage: wallet-admin ${command.words.join(' ')}${command.positional === undefined ? '' : ` ${command.options[command.positional]?.placeholder ?? 'VALUE'}`} [options]`,
    '',
    command.summary,
    ...(modeNote(command) === undefined ? [] : [modeNote(command)!]),
    '',
    'Options:',
    ...options,
    ...(command.printsJson === false ? [] : [JSON_LINE]),
    HELP_LINE,
    ...(command.moreHelp ? ['', command.moreHelp()] : []),
  ].join('\n');
}

/** Where a command runs, in the lists: nothing for the local commands, which are most. */
function listedMode(command: Command): string {
  if (!command.remote) return '';
  return command.run ? ' (also over HTTP)' : ' (over HTTP only)';
}
