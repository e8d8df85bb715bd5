/**
 * Request and reply with a worker thread: the one way the agent talks to its workers (body
 * parsing, the audit writer, WAL checkpoints, the search indexer; docs/architecture.md
 * "Concurrency model").
 *
 * The thread starts on the first use and again on the first use after it ended (a crash, a
 * timeout that killed it): the restart policy is "on demand"; a caller that wants its worker
 * back sooner calls `start()` from `onExit`. Each request gets an id and a promise; every
 * request still pending when the thread ends is rejected, so no caller waits for a reply that
 * cannot come. Messages the worker sends by itself (progress reports) go to `onEvent`.
 *
 * The worker side is `serveRequests` below: both ends of the wire format live in this file.
 */
import { EventEmitter } from 'node:events';
import { parentPort, type Transferable, type Worker } from 'node:worker_threads';
import { startModuleWorker } from './module-worker.js';

/** Main thread → worker. */
type Outbound = { id: number; request: unknown } | { post: unknown };
/** Worker → main thread. */
type Inbound = { id: number; reply: unknown } | { id: number; error: string } | { event: unknown } | { ready: true };

export interface WorkerChannelOptions<Event> {
  /** `import.meta.url` of the module beside the worker file (module-worker.ts). */
  callerUrl: string;
  /** The worker's file name without extension. */
  worker: string;
  workerData?: unknown;
  /** Keep the process alive while the thread runs (default false: a worker never holds the agent up). */
  ref?: boolean;
  onEvent?: (event: Event) => void;
  /** The thread failed with an uncaught error (its exit follows). */
  onError?: (error: Error) => void;
  /** The thread ended other than by close(), after its pending requests were rejected. */
  onExit?: (code: number) => void;
  /**
   * The error a failed request rejects with (default: Error); `reason` is plain text, and
   * `timedOut` tells a request that ran past its time from a thread that failed or stopped.
   */
  failure?: (reason: string, timedOut: boolean) => Error;
}

interface Pending {
  resolve: (reply: never) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

export class WorkerChannel<Request, Reply, Event = never> {
  private worker: Worker | null = null;
  /** The thread has loaded its module: request deadlines count from then. */
  private online = false;
  private readonly emitter = new EventEmitter();
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closing = false;

  constructor(private readonly options: WorkerChannelOptions<Event>) {}

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.pending.size;
  }

  get running(): boolean {
    return this.worker !== null;
  }

  private fail(reason: string, timedOut = false): Error {
    return this.options.failure ? this.options.failure(reason, timedOut) : new Error(reason);
  }

  /** Starts the thread unless it runs (or the channel is closed). */
  start(): void {
    if (this.worker || this.closing) return;
    const worker = startModuleWorker(
      this.options.callerUrl,
      this.options.worker,
      this.options.workerData === undefined ? {} : { workerData: this.options.workerData },
    );
    if (!this.options.ref) worker.unref();
    this.online = false;
    worker.on('message', (message: Inbound) => {
      if (this.worker === worker) this.receive(message); // a retired thread's late words are void
    });
    worker.on('error', (error) => {
      this.rejectAll(`the worker thread failed: ${error.message}`);
      this.options.onError?.(error);
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.rejectAll('the worker thread stopped');
      if (!this.closing) this.options.onExit?.(code);
    });
    this.worker = worker;
  }

  private receive(message: Inbound): void {
    if ('ready' in message) {
      this.online = true;
      this.emitter.emit('ready');
      return;
    }
    if ('event' in message) {
      this.options.onEvent?.(message.event as Event);
      return;
    }
    const job = this.pending.get(message.id);
    if (!job) return;
    this.pending.delete(message.id);
    clearTimeout(job.timer);
    if ('error' in message) job.reject(this.fail(message.error));
    else job.resolve(message.reply as never);
  }

  private rejectAll(reason: string): void {
    for (const [id, job] of this.pending) {
      this.pending.delete(id);
      clearTimeout(job.timer);
      job.reject(this.fail(reason));
    }
  }

  /**
   * Sends `request` and resolves with the worker's reply. After `timeoutMs` the request fails
   * and the thread is terminated (it is stuck on it), which fails the others it holds too.
   */
  request(request: Request, options: { transfer?: Transferable[]; timeoutMs?: number } = {}): Promise<Reply> {
    if (this.closing) return Promise.reject(this.fail('the agent is stopping'));
    this.start();
    const worker = this.worker!;
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      const job: Pending = { resolve: resolve as (reply: never) => void, reject, timer: undefined };
      // The deadline counts from when the thread runs: starting one (loading its modules) can
      // take longer than the work on a busy machine, and is not the request's fault.
      const arm = (): void => {
        if (options.timeoutMs === undefined || !this.pending.has(id)) return;
        job.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(this.fail('the worker thread took too long', true));
          // Retired at once, so the next request starts a fresh thread instead of joining this one.
          if (this.worker === worker) this.worker = null;
          this.rejectAll('the worker thread was stopped: a request took too long');
          void worker.terminate();
        }, options.timeoutMs);
      };
      this.pending.set(id, job);
      if (this.online) arm();
      else this.emitter.once('ready', arm);
      worker.postMessage({ id, request } satisfies Outbound, options.transfer);
    });
  }

  /** Sends a message that has no reply; dropped when the thread is not running. */
  post(message: unknown): void {
    this.worker?.postMessage({ post: message } satisfies Outbound);
  }

  /** Waits until every pending request is answered, or `limitMs` passed. */
  async drain(limitMs: number): Promise<void> {
    const settled = [...this.pending.values()].map(
      (job) =>
        new Promise<void>((done) => {
          const { resolve, reject } = job;
          job.resolve = (reply) => (resolve(reply), done());
          job.reject = (error) => (reject(error), done());
        }),
    );
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((done) => (timer = setTimeout(done, limitMs)));
    await Promise.race([Promise.all(settled), limit]);
    clearTimeout(timer);
  }

  /**
   * Ends the thread: pending requests are rejected, later ones too. With `goodbye`, the message
   * is posted first and the thread gets `graceMs` to end by itself (to close its files).
   */
  async close(goodbye?: { message: unknown; graceMs: number }): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    if (!worker) return;
    if (goodbye) {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage({ post: goodbye.message } satisfies Outbound);
      const timer = setTimeout(() => void worker.terminate(), goodbye.graceMs);
      await exited;
      clearTimeout(timer);
    }
    this.worker = null;
    this.rejectAll('the agent is stopping');
    await worker.terminate();
  }
}

/**
 * The worker's side: answers each request with `handle`'s result (a thrown error becomes the
 * request's failure), passes other messages to `onPost`, and returns `emit` for events.
 */
export function serveRequests<Request, Reply, Event = never>(
  handle: (request: Request) => Reply | Promise<Reply>,
  onPost: (message: unknown) => void = () => undefined,
): { emit: (event: Event) => void; close: () => void } {
  const port = parentPort!;
  port.on('message', (message: Outbound) => {
    if ('post' in message) {
      onPost(message.post);
      return;
    }
    const { id } = message;
    const send = (answer: Inbound): void => port.postMessage(answer);
    Promise.resolve()
      .then(() => handle(message.request as Request))
      .then(
        (reply) => send({ id, reply }),
        (error: unknown) => send({ id, error: error instanceof Error ? error.message : String(error) }),
      );
  });
  port.postMessage({ ready: true } satisfies Inbound);
  return { emit: (event) => port.postMessage({ event } satisfies Inbound), close: () => port.close() };
}
