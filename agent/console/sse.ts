/**
 * Server-Sent Events for the console (HTML Living Standard, "Server-sent events"): the live activity feed and
 * log file follow mode. A stream ends when the client goes away or the agent stops; a comment
 * line every 15 s keeps idle connections from being dropped by anything in between and lets a
 * dead client be noticed. `EventSource` sends the session cookie and uses GET, so the console
 * guard authenticates it like any read.
 */
import { PassThrough } from 'node:stream';
import type Koa from 'koa';

export interface EventStream {
  /**
   * Sends one event (data as JSON); resolves once the socket takes more, so a slow client
   * holds back its sender instead of filling memory. False once the stream is closed.
   */
  send(event: string, data: unknown): Promise<boolean>;
  /** Resolves when the client disconnects or the stream is closed. */
  readonly closed: Promise<void>;
  readonly signal: AbortSignal;
  close(): void;
}

const HEARTBEAT_MS = 15_000;

/** Turns the response into an event stream; `shutdown` ends it when the agent stops. */
export function openEventStream(ctx: Koa.Context, shutdown: AbortSignal): EventStream {
  const body = new PassThrough();
  const controller = new AbortController();
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const close = (): void => {
    if (controller.signal.aborted) return;
    controller.abort();
    clearInterval(heartbeat);
    shutdown.removeEventListener('abort', close);
    body.end();
    resolveClosed();
  };
  const heartbeat = setInterval(() => body.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  shutdown.addEventListener('abort', close);
  if (shutdown.aborted) queueMicrotask(close);
  ctx.req.on('close', close);
  ctx.res.on('close', close);

  ctx.status = 200;
  ctx.type = 'text/event-stream; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Accel-Buffering', 'no');
  // The connection ends with the stream, so a stopping agent is not kept waiting for it.
  ctx.set('Connection', 'close');
  ctx.req.socket.setNoDelay(true);
  ctx.body = body;
  // Tell the browser how long to wait before reconnecting after a drop.
  body.write('retry: 2000\n\n');

  return {
    async send(event, data) {
      if (controller.signal.aborted) return false;
      // JSON never contains a raw line feed, so one `data:` line carries it.
      if (!body.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            body.off('drain', done);
            controller.signal.removeEventListener('abort', done);
            resolve();
          };
          body.on('drain', done);
          controller.signal.addEventListener('abort', done);
        });
      }
      return !controller.signal.aborted;
    },
    closed,
    signal: controller.signal,
    close,
  };
}
