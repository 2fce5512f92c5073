import { spawn } from 'node:child_process';
import { writeFile, readFile } from 'node:fs/promises';
import http from 'node:http';
import { createDeployment } from './bench/lib/deployment.ts';
import { runLoad } from './bench/lib/load.ts';
import { startBaseline, startService } from './bench/lib/servers.ts';
import { signInHeaders } from './bench/lib/sign-in.ts';

const deployment = await createDeployment('sqlite');
const service = await startService({ ...deployment.env }, '/tmp/exp/service.log');
const headers = await signInHeaders(deployment.privateKey, `127.0.0.1:${service.port}`, 'benchwarm0000001', 3600_000);
const answer = await new Promise<any>((resolve) => http.get(`${service.baseUrl}/api/auth/test`, { headers }, (r) => { const c: Buffer[] = []; r.on('data', (d) => c.push(d)); r.on('end', () => { const lines: [string,string][] = []; for (let i = 0; i < r.rawHeaders.length; i += 2) if (!['date','connection','keep-alive','content-length'].includes(r.rawHeaders[i]!.toLowerCase())) lines.push([r.rawHeaders[i]!, r.rawHeaders[i+1]!]); resolve({ status: 200, headers: lines, body: Buffer.concat(c).toString() }); }); }));
await writeFile('/tmp/exp/answer.json', JSON.stringify(answer));
const bare = await startBaseline('bare-contract', '/tmp/exp/bare.log', { ANSWER_FILE: '/tmp/exp/answer.json' });
for (const [name, server] of [['service', service], ['bare', bare]] as const) {
  const strace = spawn('strace', ['-f', '-c', '-o', `/tmp/exp/strace-${name}.txt`, '-p', String(server.pid)]);
  await new Promise((r) => setTimeout(r, 500));
  const result = await runLoad({ url: server.baseUrl, method: 'GET', paths: ['/api/auth/test'], connections: 50, durationSeconds: 4, headers });
  strace.kill('SIGINT');
  await new Promise((r) => strace.on('close', r));
  console.log(name, Math.round(result.requestsPerSecond), 'req/s', result.requests, 'requests', JSON.stringify(result.statusCounts));
  console.log((await readFile(`/tmp/exp/strace-${name}.txt`, 'utf8')).split('\n').slice(0, 14).join('\n'));
}
await service.stop(); await bare.stop(); await deployment.remove();
