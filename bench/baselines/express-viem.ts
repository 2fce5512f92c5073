import express from 'express';
import { verifyMessage } from 'viem';

/**
 * Reference of auth-cold: a wallet-auth endpoint written the way most are — Express, and viem's
 * verifyMessage on every request, nothing cached.
 */
const app = express();
app.get('/ready', (_request, response) => {
  response.json({ ok: true });
});
app.get('/api/auth/test', async (request, response) => {
  const address = request.header('X-WAL') as `0x${string}`;
  const signature = request.header('X-SIG') as `0x${string}`;
  const raw = request.header('X-MES') ?? '';
  const message = raw.startsWith('base64:') ? Buffer.from(raw.slice(7), 'base64').toString('utf8') : raw;
  try {
    if (!(await verifyMessage({ address, message, signature }))) {
      response.status(401).json({ error: 'bad signature' });
      return;
    }
    response.json({ wallet: address.toLowerCase(), message: message.length });
  } catch {
    response.status(401).json({ error: 'bad signature' });
  }
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
// An orderly exit, so that --cpu-prof can write its profile.
process.once('SIGTERM', () => server.close(() => process.exit(0)));
