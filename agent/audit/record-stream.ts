/**
 * A page of records as a stream of text chunks: the rows are fetched and serialized a slice at
 * a time, so a page of 10,000 records is never one string in memory and never one long block
 * of the event loop (the generator yields between slices; the socket's backpressure pauses it).
 */
import { Readable } from 'node:stream';
import { rawToRecord } from '../store/raw-record.js';
import type { AuditRecords } from '../store/audit-records.js';
import type { TurnQueue } from '../util/turn-queue.js';
import type { VendorProfile } from './vendor-profile.js';
import {
  RECORD_LIST_JSON_HEAD,
  RECORD_LIST_XML_TAIL,
  recordListJsonTail,
  recordListXmlHead,
  recordXml,
} from './response-writers.js';

export type WireFormat = 'xml' | 'json';

/** Records per slice at most; slices are also cut by size (pageSlices). */
const SLICE = 1000;

export interface RecordPage {
  records: AuditRecords;
  seqs: readonly number[];
  format: WireFormat;
  profile: VendorProfile;
  mark: string | null;
  /** Where the slices take turns with searches and other streams: the store's queue by default. */
  turns?: TurnQueue;
  /** The slices of `seqs` (pageSlices). */
  slices: number[][];
  /** JSON slices already requested (read-ahead.ts), one per slice. */
  prepared?: Array<Promise<Buffer>>;
}

/**
 * The slices a page is built in: at most SLICE records and, by stored size, at most `maxBytes`
 * bytes each (a record larger than that is a slice of its own), so a page of large records never
 * becomes one value too large for SQLite or V8 (docs/security.md F19).
 */
export async function pageSlices(
  records: { slices(seqs: readonly number[], maxRecords: number, maxBytes: number): Promise<number[][]> | number[][] },
  seqs: readonly number[],
  maxBytes: number,
): Promise<number[][]> {
  return records.slices(seqs, SLICE, maxBytes);
}

/**
 * The JSON slices of a page, built one per turn of the event loop (a few milliseconds each) in
 * the background: read-ahead.ts holds them until the client asks for the page. They are built
 * on this thread, not on a worker: the client parsing the current page is what the read-ahead
 * overlaps, and on two cores a third busy thread only made both sides slower and the agent's
 * memory larger (docs/benchmarks.md).
 */
export function prepareSlices(records: AuditRecords, slices: readonly number[][]): Array<Promise<Buffer>> {
  const built: Array<Promise<Buffer>> = [];
  for (const slice of slices) {
    // Each slice waits for the one `slicesInFlight` before it.
    const before = built[built.length - records.slicesInFlight] ?? Promise.resolve();
    built.push(
      before
        .catch(() => undefined)
        .then(() => new Promise((resolve) => setImmediate(resolve)))
        .then(() => records.fetchJson(slice)),
    );
  }
  return built;
}

const COMMA = Buffer.from(',');

async function* chunks(page: RecordPage): AsyncGenerator<string | Buffer> {
  const json = page.format === 'json';
  yield json ? RECORD_LIST_JSON_HEAD : recordListXmlHead(page.profile, page.mark);
  const slices = page.slices;
  const turns = page.turns ?? page.records.turns;
  if (json) {
    const prepared = page.prepared && page.prepared.length === slices.length ? page.prepared : null;
    prepared?.forEach((p) => p.catch(() => undefined)); // awaited below; not an unhandled rejection meanwhile
    // Without read-ahead, the next slices are asked for before this one is sent, as many as the
    // store builds at once (a store on this thread builds one, in turn).
    const ahead = new Map<number, Promise<Buffer>>();
    const fetchAhead = (i: number): void => {
      if (prepared || i >= slices.length || ahead.has(i)) return;
      const fetching = page.records.fetchJson(slices[i]!);
      fetching.catch(() => undefined); // awaited below
      ahead.set(i, fetching);
    };
    let first = true;
    for (let i = 0; i < slices.length; i++) {
      for (let k = 0; k < page.records.slicesInFlight; k++) fetchAhead(i + k);
      // A prepared slice that failed is built again here (which reports a real database failure).
      const ready = prepared ? await prepared[i]!.catch(() => null) : null;
      const bytes = ready ?? (await (ahead.get(i) ?? page.records.fetchJson(slices[i]!)));
      ahead.delete(i);
      if (bytes.length > 0) {
        if (!first) yield COMMA;
        yield bytes;
        first = false;
      }
      await turns.turn(); // one slice per turn among all streams and searches
    }
  } else {
    for (const slice of slices) {
      // A record removed by retention since the page was chosen is simply not there.
      let out = '';
      for (const row of await page.records.fetchRaw(slice)) out += recordXml(rawToRecord(row));
      yield out;
      await turns.turn(); // one slice per turn among all streams and searches
    }
  }
  yield json ? recordListJsonTail(page.mark) : RECORD_LIST_XML_TAIL;
}

/**
 * Pages up to this many records, in one slice, are answered in one piece: one write, a
 * Content-Length, no stream machinery.
 */
export const SMALL_PAGE = 200;

export const isSmallPage = (page: RecordPage): boolean => page.seqs.length <= SMALL_PAGE && page.slices.length <= 1;

/** A small page as one buffer (the first page of a selective search, the empty last page). */
export async function recordPageBuffer(page: RecordPage): Promise<Buffer> {
  const json = page.format === 'json';
  const parts: Array<Buffer | string> = [json ? RECORD_LIST_JSON_HEAD : recordListXmlHead(page.profile, page.mark)];
  if (page.seqs.length > 0) {
    if (json) parts.push(await page.records.fetchJson([...page.seqs]));
    else for (const row of await page.records.fetchRaw(page.seqs)) parts.push(recordXml(rawToRecord(row)));
  }
  parts.push(json ? recordListJsonTail(page.mark) : RECORD_LIST_XML_TAIL);
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
}

export function recordPageStream(page: RecordPage): Readable {
  return Readable.from(chunks(page), { objectMode: false });
}
