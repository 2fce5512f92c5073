import type { Command } from './command.ts';

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
    ...commands.map((c) => `  ${c.words.join(' ').padEnd(20)} ${c.summary}`),
    '',
    'Settings (DATA_DIR, DATABASE_URL, …) come from environment variables: wallet-admin serve --help lists them.',
  ].join('\n');
}

export function groupHelp(group: string[], commands: readonly Command[]): string {
  const name = group.join(' ');
  return [
    `Usage: wallet-admin ${name} <subcommand> [options] [--json]`,
    '',
    'Subcommands:',
    ...commands.map((c) => `  ${c.words.slice(group.length).join(' ').padEnd(16)} ${c.summary}`),
    '',
    `wallet-admin ${name} <subcommand> --help shows its options.`,
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const options = Object.entries(command.options).map(([name, spec]) => {
    const flag = `--${name}${spec.type === 'string' ? ` ${spec.placeholder ?? 'VALUE'}` : ''}`;
    const marks = [spec.required ? 'required' : '', spec.multiple ? 'repeatable' : ''].filter(Boolean).join(', ');
    return `  ${flag.padEnd(24)} ${spec.description}${marks ? ` (${marks})` : ''}`;
  });
  return [
    `Usage: wallet-admin ${command.words.join(' ')} [options]`,
    '',
    command.summary,
    '',
    'Options:',
    ...options,
    ...(command.printsJson === false ? [] : [JSON_LINE]),
    HELP_LINE,
    ...(command.moreHelp ? ['', command.moreHelp()] : []),
  ].join('\n');
}
