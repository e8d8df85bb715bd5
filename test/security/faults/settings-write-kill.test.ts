/**
 * F12 (docs/security.md): kill -9 while the settings file is being rewritten (the
 * allow-list and the console port change in a loop, as from the console). After every kill the
 * file is the last acknowledged document or the one after it — never empty, never partial —
 * and the agent's settings store opens it. (Writes go temp file → fsync → rename → fsync of the
 * folder: agent/config/durable-file.ts.)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { SettingsStore } from '../../../agent/config/settings-store.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { seededRandom, sized } from '../../helpers/stress.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const WRITER = path.join(REPO_ROOT, 'test', 'fixtures', 'settings-writer.mjs');
const ROUNDS = sized(5, 100);

it(
  `F12 kill -9 during settings writes (${ROUNDS} kills): the file is always a whole document, the last acknowledged or the next`,
  async () => {
    const random = seededRandom(Number(process.env['VIGIL_SEED'] ?? 12));
    const file = path.join(makeTempDir(), 'settings.json');
    for (let round = 0; round < ROUNDS; round++) {
      const child = spawn(process.execPath, [WRITER, file], { stdio: ['ignore', 'pipe', 'pipe'] });
      let acked = 0;
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const killAt = 5 + Math.floor(random() * 30);
      await new Promise<void>((resolve, reject) => {
        let buffered = '';
        child.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          for (const line of lines) acked = Number(line);
          if (acked >= killAt && child.exitCode === null) child.kill('SIGKILL');
        });
        child.once('exit', (code, signal) =>
          signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited with ${code}: ${stderr}`)),
        );
      });
      const text = fs.readFileSync(file, 'utf8');
      const port = (JSON.parse(text) as { console: { port: number } }).console.port - 10000;
      // The acknowledged change, or one that was written but not yet acknowledged when killed.
      expect([acked, acked + 1]).toContain(port);
      const store = await SettingsStore.open(file);
      expect(store.current.console.port).toBe(10000 + port);
      await store.close();
      // A killed write may leave its temporary file beside it, never anything else.
      for (const name of fs.readdirSync(path.dirname(file))) {
        expect(name).toMatch(/^(settings\.json|\.settings\.json\.[A-Za-z0-9_-]+\.tmp)$/);
      }
    }
  },
  sized(60_000, 600_000),
);
