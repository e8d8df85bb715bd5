/**
 * A page of records as a stream of text chunks: the rows are fetched and serialized a slice at
 * a time, so a page of 10,000 records is never one string in memory and never one long block
 * of the event loop (the generator yields between slices; the socket's backpressure pauses it).
 */
import { Readable } from 'node:stream';
import { rowToRecord } from '../store/audit-store.js';
import type { AuditReader } from '../store/audit-reader.js';
import type { VendorProfile } from './vendor-profile.js';
import {
  RECORD_LIST_JSON_HEAD,
  RECORD_LIST_XML_TAIL,
  recordListJsonTail,
  recordListXmlHead,
  recordXml,
} from './response-writers.js';

export type WireFormat = 'xml' | 'json';

const SLICE = 500;

export interface RecordPage {
  reader: AuditReader;
  seqs: readonly number[];
  format: WireFormat;
  profile: VendorProfile;
  mark: string | null;
}

async function* chunks(page: RecordPage): AsyncGenerator<string> {
  const json = page.format === 'json';
  yield json ? RECORD_LIST_JSON_HEAD : recordListXmlHead(page.profile, page.mark);
  let first = true;
  for (let i = 0; i < page.seqs.length; i += SLICE) {
    // A record removed by retention since the page was chosen is simply not there.
    const rows = page.reader.fetchRows(page.seqs.slice(i, i + SLICE));
    let out = '';
    for (const row of rows) {
      const record = rowToRecord(row);
      out += json ? (first ? '' : ',') + JSON.stringify(record) : recordXml(record);
      first = false;
    }
    yield out;
    await new Promise((resolve) => setImmediate(resolve));
  }
  yield json ? recordListJsonTail(page.mark) : RECORD_LIST_XML_TAIL;
}

export function recordPageStream(page: RecordPage): Readable {
  return Readable.from(chunks(page), { objectMode: false });
}
