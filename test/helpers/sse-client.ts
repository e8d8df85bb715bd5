/** A Server-Sent Events reader for console tests: collects events and waits for one that matches. */
import http from 'node:http';
import type { TestAgent } from './test-agent.js';
import { withToken } from './console-client.js';

export interface SseEvent {
  event: string;
  data: unknown;
}

export class SseReader {
  readonly events: SseEvent[] = [];
  private waiters = new Set<() => void>();
  private buffer = '';
  private ended = false;

  private constructor(
    private readonly req: http.ClientRequest,
    readonly status: number,
    readonly headers: http.IncomingHttpHeaders,
    res: http.IncomingMessage,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.feed(chunk));
    res.on('end', () => {
      this.ended = true;
      this.notify();
    });
    res.on('error', () => undefined);
  }

  static open(agent: TestAgent, path: string, headers: Record<string, string> = withToken(agent)): Promise<SseReader> {
    return new Promise((resolve, reject) => {
      const req = http.get(
        { host: '127.0.0.1', port: agent.ports.console, path, headers: { Accept: 'text/event-stream', ...headers } },
        (res) => resolve(new SseReader(req, res.statusCode ?? 0, res.headers, res)),
      );
      req.on('error', reject);
    });
  }

  get closed(): boolean {
    return this.ended;
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length > 0) this.events.push({ event, data: JSON.parse(data.join('\n')) as unknown });
    }
    this.notify();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** The first event (in arrival order) named `event` for which `accept` holds. */
  async waitFor(event: string, accept: (data: unknown) => boolean = () => true, timeoutMs = 15_000): Promise<SseEvent> {
    const find = (): SseEvent | undefined => this.events.find((e) => e.event === event && accept(e.data));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found) return found;
      if (this.ended) throw new Error(`stream ended without a "${event}" event; got ${JSON.stringify(this.events)}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no matching "${event}" event in ${timeoutMs} ms; got ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        const waiters = this.waiters;
        function done(): void {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
        waiters.add(done);
      });
    }
  }

  /** Resolves when the server ends the stream. */
  async waitForEnd(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      if (Date.now() > deadline) throw new Error('the stream did not end');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 100);
        const waiters = this.waiters;
        function done(): void {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
        waiters.add(done);
      });
    }
  }

  close(): void {
    this.req.destroy();
  }
}
