import { runServer } from '../../service/run-server.ts';
import type { Command } from '../command.ts';

export const serveCommand: Command = {
  words: ['serve'],
  summary: 'Run the HTTP service (settings from environment variables; see README)',
  options: {},
  async run({ config }) {
    await runServer(config);
    return undefined;
  },
};
