import Fastify from 'fastify';

/**
 * Baseline of auth-warm: a bare Fastify route answering a small JSON body, no authentication,
 * no logging — the most this machine serves through Fastify. `/hello` is the console scenario's
 * baseline: the smallest page a browser can load, so its load time is the browser's own floor.
 */
const app = Fastify();
app.get('/api/auth/test', async () => ({
  principal: { id: 'adm_0', tenantId: 'ten_0' },
  wallet: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
}));
app.get('/hello', async (_request, reply) =>
  reply.type('text/html; charset=utf-8').send('<!doctype html><html lang="en"><title>hello</title><p id="hello">hello</p></html>'),
);
app.get('/ready', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
// An orderly exit, so that --cpu-prof can write its profile.
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
