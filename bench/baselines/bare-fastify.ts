import Fastify from 'fastify';

/**
 * Baseline of auth-warm: a bare Fastify route answering a small JSON body, no authentication,
 * no logging — the most this machine serves through Fastify.
 */
const app = Fastify();
app.get('/api/auth/test', async () => ({
  principal: { id: 'adm_0', tenantId: 'ten_0' },
  wallet: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
}));
app.get('/ready', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
// An orderly exit, so that --cpu-prof can write its profile.
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
