/**
 * A real syslog receiver for tests: Debian's rsyslogd, run in the foreground with its own
 * configuration in a temporary folder, listening on loopback for UDP, TCP and TLS (the ossl
 * driver from rsyslog-openssl) and writing what it parsed, one message a line, to a file per
 * transport. `.ci/run` installs the packages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { generate } from 'selfsigned';
import { makeTempDir } from './temp-dir.js';

export type Transport = 'udp' | 'tcp' | 'tls';

export interface Rsyslog {
  ports: Record<Transport, number>;
  /** PEM of the receiver's self-signed certificate (SAN 127.0.0.1 and localhost). */
  caPem: string;
  /** Parsed messages so far: `hostname|app-name|procid|msgid|structured-data|msg`. */
  lines(transport: Transport): string[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

const BINARY = ['/usr/sbin/rsyslogd', '/sbin/rsyslogd'].find((p) => fs.existsSync(p)) ?? 'rsyslogd';

export async function freeTcpPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = socket.address().port;
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function createRsyslog(): Promise<Rsyslog> {
  const dir = makeTempDir('vigil-rsyslog-');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'rsa',
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  fs.writeFileSync(path.join(dir, 'cert.pem'), pems.cert);
  fs.writeFileSync(path.join(dir, 'key.pem'), pems.private, { mode: 0o600 });
  const ports = { udp: await freeUdpPort(), tcp: await freeTcpPort(), tls: await freeTcpPort() };
  const file = (t: Transport): string => path.join(dir, `${t}.log`);
  fs.writeFileSync(
    path.join(dir, 'rsyslog.conf'),
    `global(workDirectory="${dir}"
  DefaultNetstreamDriverCAFile="${dir}/cert.pem"
  DefaultNetstreamDriverCertFile="${dir}/cert.pem"
  DefaultNetstreamDriverKeyFile="${dir}/key.pem")
module(load="imudp")
module(load="imtcp")
template(name="parsed" type="string" string="%hostname%|%app-name%|%procid%|%msgid%|%structured-data%|%msg%\\n")
input(type="imudp" port="${ports.udp}" address="127.0.0.1" ruleset="udp")
input(type="imtcp" port="${ports.tcp}" address="127.0.0.1" ruleset="tcp")
input(type="imtcp" port="${ports.tls}" address="127.0.0.1" ruleset="tls"
  streamDriver.name="ossl" streamDriver.mode="1" streamDriver.authMode="anon")
ruleset(name="udp") { action(type="omfile" file="${file('udp')}" template="parsed" flushOnTXEnd="on") }
ruleset(name="tcp") { action(type="omfile" file="${file('tcp')}" template="parsed" flushOnTXEnd="on") }
ruleset(name="tls") { action(type="omfile" file="${file('tls')}" template="parsed" flushOnTXEnd="on") }
`,
  );
  let child: ChildProcess | null = null;
  return {
    ports,
    caPem: pems.cert,
    lines: (t) => (fs.existsSync(file(t)) ? fs.readFileSync(file(t), 'utf8').split('\n').slice(0, -1) : []),
    async start() {
      const started = spawn(
        BINARY,
        ['-n', '-f', path.join(dir, 'rsyslog.conf'), '-i', path.join(dir, 'rsyslogd.pid')],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const failed = new Promise<never>((_, reject) => {
        started.once('error', (error) =>
          reject(new Error(`cannot run ${BINARY} (apt-get install rsyslog rsyslog-openssl): ${error.message}`)),
        );
        started.once('exit', (code) => reject(new Error(`rsyslogd exited with ${code}: ${stderr}`)));
      });
      child = started;
      const deadline = Date.now() + 10_000;
      const ready = (async () => {
        while (!((await accepts(ports.tcp)) && (await accepts(ports.tls)))) {
          if (Date.now() > deadline) throw new Error(`rsyslogd did not listen within 10 s: ${stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      await Promise.race([ready, failed]);
      failed.catch(() => undefined);
    },
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      await new Promise((resolve) => {
        running.once('exit', resolve);
        running.kill('SIGTERM');
      });
    },
  };
}
