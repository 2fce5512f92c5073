import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

/**
 * Baseline of auth-warm and half of auth-cold's ceiling: a bare Fastify route that answers the very
 * bytes the service answers to GET /api/auth/test — its status, its headers (the contract's CORS and
 * security headers, Vary's three lines), its JSON body — precomputed from one real answer
 * (ANSWER_FILE), with no authentication and no logging. The gap to the service is then the work of
 * authenticating and logging alone, not the weight of the contract's answer.
 */
interface CapturedAnswer {
  status: number;
  /** Raw header lines, in order, without those Node sets per connection. */
  headers: [string, string][];
  body: string;
}

const answer = JSON.parse(readFileSync(process.env.ANSWER_FILE!, 'utf8')) as CapturedAnswer;
const headers: Record<string, string | string[]> = {};
for (const [name, value] of answer.headers) {
  const previous = headers[name];
  headers[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
}

const app = Fastify();
app.get('/api/auth/test', (_request, reply) => {
  reply.code(answer.status).headers(headers).send(answer.body);
});
app.get('/ready', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
// An orderly exit, so that --cpu-prof can write its profile.
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
