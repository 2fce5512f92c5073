import type { Command } from '../command.ts';

export const serveCommand: Command = {
  words: ['serve'],
  summary: 'Run the HTTP service (settings from environment variables; see README)',
  options: {},
  async run({ config }) {
    // The server (Fastify and everything behind it) loads only for this command.
    const { runServer } = await import('../../service/run-server.ts');
    await runServer(config);
    return undefined;
  },
};
