/** Start/stop ordering of the agent inside the main process, and the quit sequence. */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../agent/log/logger.js';
import { AgentHost, type HostPhase } from '../../main/agent-host.js';
import { installQuitHandler, type QuitApp } from '../../main/quit-handler.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** An agent whose stop() is recorded in a shared journal, to check what happened in which order. */
function journalAgent(journal: string[], name: string) {
  return {
    name,
    stop: async () => {
      journal.push(`stop ${name}`);
    },
  };
}

function phases(host: AgentHost<{ stop(): Promise<void> }>): HostPhase[] {
  const seen: HostPhase[] = [];
  host.onChange(() => seen.push(host.phase));
  return seen;
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('AgentHost', () => {
  it('goes starting → running and hands out the agent', async () => {
    const journal: string[] = [];
    const host = new AgentHost(async () => journalAgent(journal, 'a'), silentLogger);
    const seen = phases(host);
    const agent = await host.start();
    expect(agent?.name).toBe('a');
    expect(host.agent).toBe(agent);
    expect(seen).toEqual(['starting', 'running']);
    expect(await host.start()).toBe(agent); // no second agent
  });

  it('records why a start failed, and can start again afterwards', async () => {
    let attempts = 0;
    const host = new AgentHost(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('port 4494 is already in use');
      return { stop: async () => undefined };
    }, silentLogger);
    expect(await host.start()).toBeNull();
    expect(host.phase).toBe('failed');
    expect(host.failure?.message).toMatch(/4494/);
    expect(await host.start()).not.toBeNull();
    expect(host.phase).toBe('running');
    expect(host.failure).toBeNull();
  });

  it('joins concurrent starts into one', async () => {
    let calls = 0;
    const gate = deferred<{ stop(): Promise<void> }>();
    const host = new AgentHost(() => {
      calls += 1;
      return gate.promise;
    }, silentLogger);
    const a = host.start();
    const b = host.start();
    gate.resolve({ stop: async () => undefined });
    expect(await a).toBe(await b);
    expect(calls).toBe(1);
  });

  it('stop() during a start waits for it, then stops what it produced', async () => {
    const journal: string[] = [];
    const gate = deferred<ReturnType<typeof journalAgent>>();
    const host = new AgentHost(() => gate.promise, silentLogger);
    const seen = phases(host);
    const started = host.start();
    const stopped = host.stop();
    journal.push('start settles');
    gate.resolve(journalAgent(journal, 'late'));
    await Promise.all([started, stopped]);
    expect(journal).toEqual(['start settles', 'stop late']);
    expect(host.phase).toBe('stopped');
    expect(host.agent).toBeNull();
    expect(seen).toEqual(['starting', 'stopping', 'stopped']); // never "running" after stop began
  });

  it('stops once, however often stop() is called, and never starts again afterwards', async () => {
    const journal: string[] = [];
    let starts = 0;
    const host = new AgentHost(async () => journalAgent(journal, `#${++starts}`), silentLogger);
    await host.start();
    await Promise.all([host.stop(), host.stop()]);
    await host.stop();
    expect(journal).toEqual(['stop #1']);
    expect(await host.start()).toBeNull();
    expect(starts).toBe(1);
  });

  it('a failed start followed by stop ends stopped without calling stop on anything', async () => {
    const host = new AgentHost(async (): Promise<{ stop(): Promise<void> }> => {
      throw new Error('settings.json: field "agentApi.port" must be a number');
    }, silentLogger);
    await host.start();
    await host.stop();
    expect(host.phase).toBe('stopped');
  });

  it('hosts a real agent: listeners up after start, closed and lock released after stop', async () => {
    const dataDir = makeTempDir();
    const host = new AgentHost(() => startTestAgent({ dataDir }), silentLogger);
    const agent = await host.start();
    expect(agent).not.toBeNull();
    const ports = agent!.ports;
    expect(await portAccepts(ports.console)).toBe(true);
    await host.stop();
    expect(await portAccepts(ports.console)).toBe(false);
    expect(await portAccepts(ports.api)).toBe(false);
    // The lock is released: another agent can take the same data directory at once.
    const next = await startTestAgent({ dataDir });
    await next.stop();
  });
});

/** The part of Electron's App the quit handler uses, driven the way Electron drives it. */
class QuittingApp extends EventEmitter implements QuitApp {
  exits: number[] = [];
  prevented = 0;
  exit(code = 0): void {
    this.exits.push(code);
    this.emit('exited', code);
  }
  /** What app.quit() does: emit before-quit; quit only when nobody prevented it. */
  quit(): boolean {
    let prevented = false;
    this.emit('before-quit', {
      preventDefault: () => {
        prevented = true;
        this.prevented += 1;
      },
    });
    return !prevented;
  }
  exited(): Promise<number> {
    return new Promise((resolve) => this.once('exited', resolve));
  }
}

describe('quit handler', () => {
  it('cancels the quit, stops the real agent, then exits with code 0', async () => {
    const host = new AgentHost(() => startTestAgent(), silentLogger);
    const agent = await host.start();
    const app = new QuittingApp();
    installQuitHandler(app, { stop: () => host.stop(), log: silentLogger });
    const exited = app.exited();
    let phaseAtExit: HostPhase | null = null;
    let consoleOpenAtExit: boolean | null = null;
    app.once('exited', () => {
      phaseAtExit = host.phase;
      void portAccepts(agent!.ports.console).then((open) => (consoleOpenAtExit = open));
    });
    expect(app.quit()).toBe(false); // the first quit is held back until the agent has stopped
    expect(app.exits).toEqual([]);
    expect(await exited).toBe(0);
    expect(phaseAtExit).toBe('stopped');
    await expect.poll(() => consoleOpenAtExit).toBe(false);
  });

  it('a second Quit while stopping waits for the first; exit happens once', async () => {
    const gate = deferred<void>();
    const app = new QuittingApp();
    let stops = 0;
    installQuitHandler(app, {
      stop: () => {
        stops += 1;
        return gate.promise;
      },
      log: silentLogger,
    });
    app.quit();
    app.quit();
    expect(app.prevented).toBe(2);
    gate.resolve();
    await app.exited();
    expect(stops).toBe(1);
    expect(app.exits).toEqual([0]);
  });

  it('exits with code 1 when stopping fails', async () => {
    const app = new QuittingApp();
    installQuitHandler(app, { stop: () => Promise.reject(new Error('disk I/O error')), log: silentLogger });
    app.quit();
    expect(await app.exited()).toBe(1);
  });

  it('exits anyway, with code 1, when stopping hangs past the bound', async () => {
    const app = new QuittingApp();
    installQuitHandler(app, { stop: () => new Promise<void>(() => undefined), log: silentLogger, stopTimeoutMs: 50 });
    const started = Date.now();
    app.quit();
    expect(await app.exited()).toBe(1);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
