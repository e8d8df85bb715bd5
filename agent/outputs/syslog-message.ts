/**
 * Syslog messages in the RFC 5424 format and their framing on a stream.
 *
 *   SYSLOG-MSG = HEADER SP STRUCTURED-DATA [SP MSG]                      (RFC 5424 §6)
 *   HEADER     = PRI VERSION SP TIMESTAMP SP HOSTNAME SP APP-NAME SP PROCID SP MSGID
 *
 * PRI is facility 13 "log audit" with severity 5 "notice" (RFC 5424 §6.2.1): <109>. TIMESTAMP is UTC
 * with milliseconds (RFC 5424 §6.2.3). MSGID is the record's Action. STRUCTURED-DATA is the NILVALUE
 * "-": the record's fields are in MSG, laid out by the output's template. MSG is sent without
 * a BOM (MSG-ANY, RFC 5424 §6.4), which every receiver tried reads as UTF-8.
 *
 * Framing on TCP and TLS (RFC 6587 §3.4): `Rfc5425` is octet counting, "MSG-LEN SP SYSLOG-MSG"
 * (RFC 6587 §3.4.1, RFC 5425 §4.3); `Lf`, `CrLf`, `Cr` and `Nul` append that trailer
 * (non-transparent framing, RFC 6587 §3.4.2). On UDP each datagram holds one message (RFC 5426 §3.1).
 */
import type { ActivityRecord } from '../../shared/activity-record.js';

export const FACILITY_LOG_AUDIT = 13;
export const SEVERITY_NOTICE = 5;
export const APP_NAME = 'Vigil';

export type Separator = 'Rfc5425' | 'Lf' | 'CrLf' | 'Cr' | 'Nul';

/** PRINTUSASCII (%d33-126) only, at most `max` characters; "-" when empty (RFC 5424 §6.2). */
export function headerField(value: string, max: number): string {
  const clean = value.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return clean === '' ? '-' : clean;
}

/** Template values: quotes and backslashes escaped, control characters written as \n, \t... */
export function templateValue(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped
  return value.replace(/[\\"\x00-\x1f\x7f]/g, (c) => {
    if (c === '\\' || c === '"') return `\\${c}`;
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/** The values `{Name}` placeholders may use (docs/activity-pipeline.md lists them). */
export function templateFields(record: ActivityRecord, newPath?: string): Record<string, string> {
  return {
    RID: record.RID,
    Who: record.Who,
    Action: record.Action,
    What: record.What,
    When: record.When,
    Where: record.Where,
    ObjectType: record.ObjectType,
    DataSource: record.DataSource,
    MonitoringPlan: record.MonitoringPlan?.Name ?? '',
    MonitoringPlanId: record.MonitoringPlan?.ID ?? '',
    Item: record.Item?.Name ?? '',
    Workstation: record.Workstation ?? '',
    OldPath: record.DetailList?.find((d) => d.PropertyName === 'Path')?.Before ?? '',
    NewPath: newPath ?? '',
  };
}

export function renderTemplate(template: string, fields: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(fields, name) ? templateValue(fields[name]!) : whole,
  );
}

export interface MessageParts {
  timeMs: number;
  hostname: string;
  procId: number;
  msgId: string;
  msg: string;
}

export function formatRfc5424(parts: MessageParts): string {
  const pri = FACILITY_LOG_AUDIT * 8 + SEVERITY_NOTICE;
  return (
    `<${pri}>1 ${new Date(parts.timeMs).toISOString()} ${headerField(parts.hostname, 255)} ${APP_NAME} ` +
    `${headerField(String(parts.procId), 128)} ${headerField(parts.msgId, 32)} - ${parts.msg}`
  );
}

const TRAILERS: Record<Exclude<Separator, 'Rfc5425'>, string> = { Lf: '\n', CrLf: '\r\n', Cr: '\r', Nul: '\0' };

/** The bytes of one message on a TCP or TLS stream. */
export function frame(message: string, separator: Separator): Buffer {
  const body = Buffer.from(message, 'utf8');
  if (separator === 'Rfc5425') return Buffer.concat([Buffer.from(`${body.length} `), body]);
  return Buffer.concat([body, Buffer.from(TRAILERS[separator])]);
}

/** Cuts a message to at most `maxBytes` bytes of UTF-8 without splitting a character. */
export function truncateUtf8(message: string, maxBytes: number): Buffer {
  const body = Buffer.from(message, 'utf8');
  if (body.length <= maxBytes) return body;
  let end = maxBytes;
  while (end > 0 && (body[end]! & 0xc0) === 0x80) end--;
  return body.subarray(0, end);
}
