import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import autocannon from 'autocannon';
const dataDir = '/tmp/prof-d';
fs.rmSync(dataDir, { recursive: true, force: true });
const run = (args: string[]) =>
  new Promise<string>((res) => {
    const c = spawn(process.execPath, args);
    let o = '';
    c.stdout.on('data', (d) => (o += d));
    c.on('close', () => res(o));
  });
const client = JSON.parse(
  await run(['bin/vigil.js', 'client', 'add', '--data-dir', dataDir, '--name', 'p', '--permission', 'read']),
);
const agent = spawn(
  process.execPath,
  [
    '--cpu-prof',
    '--cpu-prof-dir=/tmp/prof',
    'bin/vigil.js',
    'agent',
    '--data-dir',
    dataDir,
    '--api-port',
    '0',
    '--audit-port',
    '0',
    '--console-port',
    '0',
  ],
  { env: { ...process.env, VIGIL_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] },
);
const line = await new Promise<string>((res) => agent.stdout.on('data', (d) => res(String(d))));
const { apiUrl } = JSON.parse(line);
const ca = fs.readFileSync(dataDir + '/tls/cert.pem', 'utf8');
const body = new URLSearchParams({
  grant_type: 'client_credentials',
  client_id: client.clientId,
  client_secret: client.clientSecret,
}).toString();
const tok: string = await new Promise((res) => {
  const r = https.request(
    apiUrl + '/api/v1/token',
    { method: 'POST', ca, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    (s) => {
      let t = '';
      s.on('data', (d) => (t += d));
      s.on('end', () => res(JSON.parse(t).access_token));
    },
  );
  r.end(body);
});
const mode = process.argv[2];
const r =
  mode === 'token'
    ? await autocannon({
        url: apiUrl + '/api/v1/token',
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        connections: Number(process.argv[3] ?? 20),
        duration: 6,
      })
    : await autocannon({
        url: apiUrl + '/api/v1/agents',
        headers: { authorization: 'Bearer ' + tok },
        connections: 20,
        duration: 6,
      });
console.log(mode, r.requests.average, r.non2xx);
agent.kill('SIGINT');
await new Promise((r) => setTimeout(r, 1500));
