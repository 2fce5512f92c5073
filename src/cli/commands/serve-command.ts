import { SETTINGS } from '../../config/settings.ts';
import type { Command } from '../command.ts';

/** Every setting with its default and meaning, from the one list config.ts is checked against. */
function settingsHelp(): string {
  const width = Math.max(...SETTINGS.map((s) => s.name.length));
  return [
    'Settings (environment variables, read once at start; docs/configuration.md has the details):',
    ...SETTINGS.map((s) => `  ${s.name.padEnd(width)}  ${s.meaning} (default: ${s.fallback})`),
  ].join('\n');
}

export const serveCommand: Command = {
  words: ['serve'],
  summary: 'Run the HTTP service (settings from environment variables: serve --help lists them)',
  options: {},
  printsJson: false,
  moreHelp: settingsHelp,
  async run({ config }) {
    // The server (Fastify and everything behind it) loads only for this command.
    const { runServer } = await import('../../service/run-server.ts');
    await runServer(config);
    return undefined;
  },
};
