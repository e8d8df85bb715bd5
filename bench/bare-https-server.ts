/**
 * The peer of the agent API benchmark: a bare Node https server with the agent's own TLS
 * settings and certificate that answers every request with one fixed JSON body. Run as a child
 * process: `tsx bench/bare-https-server.ts <data dir> <body file>`; prints its port on stdout.
 */
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { httpsServerOptions } from '../agent/tls/server-options.js';

const [dataDir, bodyFile] = process.argv.slice(2);
if (!dataDir || !bodyFile) throw new Error('usage: bare-https-server.ts <data dir> <body file>');
const certPem = fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
const keyPem = fs.readFileSync(path.join(dataDir, 'tls', 'key.pem'), 'utf8');
const body = fs.readFileSync(bodyFile);

const options = httpsServerOptions({ certPem, keyPem, fingerprint256: '', validTo: new Date() });
const server = https.createServer(options, (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
