import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { createDeployment } from './bench/lib/deployment.ts';
import { runLoad } from './bench/lib/load.ts';
import { startBaseline, startService } from './bench/lib/servers.ts';
import { signInHeaders } from './bench/lib/sign-in.ts';

const cpuMs = async (pid: number) => { const f = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const envs = (process.argv[2] ?? '').split(';').filter(Boolean).map((e) => Object.fromEntries(e.split(',').map((kv) => kv.split('='))));
if (envs.length === 0) envs.push({});
const deployment = await createDeployment('sqlite');
let answerWritten = false;
for (const env of [...envs, 'bare' as const]) {
  const server = env === 'bare' ? await startBaseline('bare-contract', '/tmp/exp/bare.log', { ANSWER_FILE: '/tmp/exp/answer.json' }) : await startService({ ...deployment.env, ...env }, '/tmp/exp/service.log');
  const headers = await signInHeaders(deployment.privateKey, `127.0.0.1:${server.port}`, 'benchwarm0000001', 3600_000);
  if (!answerWritten && env !== 'bare') {
    const answer = await new Promise<any>((resolve) => http.get(`${server.baseUrl}/api/auth/test`, { headers }, (r) => { const c: Buffer[] = []; r.on('data', (d) => c.push(d)); r.on('end', () => { const lines: [string,string][] = []; for (let i = 0; i < r.rawHeaders.length; i += 2) if (!['date','connection','keep-alive','content-length'].includes(r.rawHeaders[i]!.toLowerCase())) lines.push([r.rawHeaders[i]!, r.rawHeaders[i+1]!]); resolve({ status: 200, headers: lines, body: Buffer.concat(c).toString() }); }); }));
    await writeFile('/tmp/exp/answer.json', JSON.stringify(answer)); answerWritten = true;
  }
  await runLoad({ url: server.baseUrl, method: 'GET', paths: ['/api/auth/test'], connections: 50, durationSeconds: 2, headers });
  const results = [];
  for (let i = 0; i < 3; i++) {
    const before = await cpuMs(server.pid);
    const r = await runLoad({ url: server.baseUrl, method: 'GET', paths: ['/api/auth/test'], connections: 50, durationSeconds: 5, headers });
    const used = (await cpuMs(server.pid)) - before;
    results.push({ rps: Math.round(r.requestsPerSecond), cpuUsPerReq: Math.round((used * 1000 / r.requests) * 10) / 10 });
  }
  console.log(JSON.stringify(env), JSON.stringify(results));
  await server.stop();
}
await deployment.remove();
