/**
 * The documents the audit API writes (docs/audit-api.md; schemas in docs/schemas/):
 * ActivityRecordList in XML (ContinuationMark first, then the records) or JSON
 * (`{"ActivityRecordList": [...], "ContinuationMark": "..."}`), and ErrorList in both.
 * XML is written by hand: a template is about three times faster than a generic builder
 * (docs/architecture.md), and a record list can hold 10,000 records.
 */
import type { ActivityRecord } from '../../shared/activity-record.js';
import type { ErrorEntry } from './audit-errors.js';
import type { VendorProfile } from './vendor-profile.js';

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

// Text content only (no attribute values are written from data): & < > are the ones that matter.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
// Characters XML 1.0 cannot carry at all, not even as references (XML 1.0 §2.2): a file name may hold
// them, so they are shown as U+FFFD rather than producing a document no parser accepts.
/* eslint-disable no-control-regex -- matching control characters is the point here */
const FORBIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const NEEDS_WORK = /[&<>\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
/* eslint-enable no-control-regex */

export function xmlText(value: string): string {
  if (!NEEDS_WORK.test(value)) return value;
  return value.replace(/[&<>]/g, (c) => ESCAPES[c]!).replace(FORBIDDEN, '\uFFFD');
}

const element = (name: string, value: string | undefined): string =>
  value === undefined ? '' : `<${name}>${xmlText(value)}</${name}>`;

/** One ActivityRecord element, fields in the order of docs/audit-api.md's examples. */
export function recordXml(r: ActivityRecord): string {
  let out = '<ActivityRecord>';
  if (r.MonitoringPlan) {
    out += `<MonitoringPlan>${element('Name', r.MonitoringPlan.Name)}${element('ID', r.MonitoringPlan.ID)}</MonitoringPlan>`;
  }
  out += element('DataSource', r.DataSource);
  if (r.Item) out += `<Item>${element('Name', r.Item.Name)}</Item>`;
  out +=
    element('ObjectType', r.ObjectType) +
    element('RID', r.RID) +
    element('What', r.What) +
    element('Action', r.Action) +
    element('When', r.When) +
    element('Where', r.Where) +
    element('Who', r.Who) +
    element('Workstation', r.Workstation);
  if (r.DetailList && r.DetailList.length > 0) {
    out += '<DetailList>';
    for (const d of r.DetailList) {
      out += `<Detail>${element('PropertyName', d.PropertyName)}${element('Before', d.Before)}${element('After', d.After)}${element('Message', d.Message)}</Detail>`;
    }
    out += '</DetailList>';
  }
  return out + '</ActivityRecord>';
}

export function recordListXmlHead(profile: VendorProfile, mark: string | null): string {
  return (
    `${XML_DECLARATION}\n<ActivityRecordList xmlns="${profile.recordsNamespace}">` +
    (mark === null ? '' : `<ContinuationMark>${xmlText(mark)}</ContinuationMark>`)
  );
}

export const RECORD_LIST_XML_TAIL = '</ActivityRecordList>\n';
export const RECORD_LIST_JSON_HEAD = '{"ActivityRecordList":[';

export function recordListJsonTail(mark: string | null): string {
  return mark === null ? ']}\n' : `],"ContinuationMark":${JSON.stringify(mark)}}\n`;
}

export function errorListXml(profile: VendorProfile, errors: readonly ErrorEntry[]): string {
  const items = errors
    .map(
      (e) =>
        `<Error><Category>${xmlText(e.Category)}</Category><Description>${xmlText(e.Description)}</Description>` +
        `${e.Location === undefined ? '' : `<Location>${xmlText(e.Location)}</Location>`}</Error>`,
    )
    .join('');
  return `${XML_DECLARATION}\n<ErrorList xmlns="${profile.errorsNamespace}">${items}</ErrorList>\n`;
}

export function errorListJson(errors: readonly ErrorEntry[]): string {
  return JSON.stringify({ ErrorList: errors }) + '\n';
}
