/**
 * Request bodies from bytes to values: UTF-8 (anything else is refused), then XML through the
 * safe reader or JSON through JSON.parse. A JSON body that does not parse gets 500 with an empty
 * body, the rule of docs/audit-api.md — handled here, never a crash.
 * Pure of I/O, so the parse worker (body-parse-worker.ts) runs the same code.
 */
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { EmptyResponse, ErrorCodes, xmlError } from './audit-errors.js';
import { utf8Text } from '../http/read-body.js';
import { recordsFromJson, recordsFromXml } from './record-input.js';
import { vendorProfile } from './vendor-profile.js';
import { parseXmlDocument, type XmlElement } from './xml-document.js';
import { READ_BODY_XML_LIMITS, WRITE_BODY_XML_LIMITS, type XmlLimits } from './xml-limits.js';
import type { WireFormat } from './record-stream.js';

/** An XML request body as elements, within `limits` (search and enum bodies by default). */
export function xmlBody(bytes: Uint8Array, limits: XmlLimits = READ_BODY_XML_LIMITS): XmlElement {
  const text = utf8Text(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (text === null) throw xmlError(ErrorCodes.xmlCharacter, 'the body is not valid UTF-8');
  if (text.trim() === '') throw xmlError(ErrorCodes.xmlDocument, 'the body is empty; an XML document is expected');
  if (/^\s*[[{"]/.test(text)) {
    throw xmlError(ErrorCodes.xmlDocument, 'the body is not XML; add ?format=json to send JSON');
  }
  return parseXmlDocument(text, limits);
}

export function jsonBody(bytes: Uint8Array): unknown {
  const text = utf8Text(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  try {
    if (text === null) throw new Error('not UTF-8');
    return JSON.parse(text) as unknown;
  } catch {
    throw new EmptyResponse(500, {}, 'corrupted JSON body');
  }
}

export function parseWriteBody(bytes: Uint8Array, format: WireFormat, vendor: string): NewActivityRecord[] {
  return format === 'json'
    ? recordsFromJson(jsonBody(bytes))
    : recordsFromXml(xmlBody(bytes, WRITE_BODY_XML_LIMITS), vendorProfile(vendor));
}
