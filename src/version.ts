import { createRequire } from 'node:module';

export const SERVICE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
