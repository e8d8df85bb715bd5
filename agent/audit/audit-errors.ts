/**
 * Errors of the audit API (docs/audit-api.md): an ErrorList body with Category, a Description that starts
 * with a hexadecimal code, and an optional Location; or, for some statuses, an empty body.
 * Handlers throw these; the error middleware writes them. The codes are listed in
 * docs/audit-api.md ("Errors"); they keep the HRESULT style existing clients expect.
 */

export type ErrorCategory = 'XMLError' | 'InputError' | 'ServerError';

export const ErrorCodes = {
  /** A parameter or value does not convert to its type (the code docs/audit-api.md gives for `count`). */
  conversion: '0x80040204',
  /** A value converts but is not acceptable: unknown filter, operator, field, too many values. */
  invalidArgument: '0x80070057',
  /** A continuation mark that Vigil did not issue, or that was changed. */
  invalidMark: '0x8007000D',
  /** XML: tags do not match, unclosed tags. */
  xmlTagMismatch: '0xC00CE56D',
  /** XML: bad attribute syntax. */
  xmlAttribute: '0xC00CE514',
  /** XML: a character that is not allowed, or bytes that are not UTF-8. */
  xmlCharacter: '0xC00CE502',
  /** XML: not a single well-formed document (empty, text, several roots, trailing content). */
  xmlDocument: '0xC00CE558',
  /** XML: a DOCTYPE or ENTITY declaration (refused: no DTDs, no entity expansion). */
  xmlDtdProhibited: '0xC00CE584',
  /** XML: a reference to an entity that is not one of XML's five, or a bad character reference. */
  xmlEntity: '0xC00CE509',
  /**
   * XML: past one of the reader's limits (xml-limits.ts): nesting depth, elements, attributes on
   * one element, namespace declarations.
   */
  xmlLimit: '0xC00CE577',
  /** XML: well-formed, but not this API's document (root, namespace, element, attribute). */
  xmlSchema: '0xC00CE55A',
  /** The audit database cannot be reached (the code docs/audit-api.md gives). */
  databaseUnreachable: '0x80040C0A',
  /** Anything else that went wrong inside the agent. */
  internal: '0x80004005',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export interface ErrorEntry {
  Category: ErrorCategory;
  Description: string;
  Location?: string;
}

/** An error answered with an ErrorList body. */
export class AuditError extends Error {
  constructor(
    readonly status: 400 | 500,
    readonly category: ErrorCategory,
    readonly code: ErrorCode,
    readonly detail: string,
    readonly location?: string,
  ) {
    super(`${code} ${detail}`);
    this.name = 'AuditError';
  }

  get entry(): ErrorEntry {
    const entry: ErrorEntry = { Category: this.category, Description: this.message };
    if (this.location !== undefined) entry.Location = this.location;
    return entry;
  }
}

export const inputError = (code: ErrorCode, detail: string, location?: string): AuditError =>
  new AuditError(400, 'InputError', code, detail, location);

export const xmlError = (code: ErrorCode, detail: string, location?: string): AuditError =>
  new AuditError(400, 'XMLError', code, detail, location);

export const serverError = (code: ErrorCode, detail: string): AuditError =>
  new AuditError(500, 'ServerError', code, detail);

/** An error answered with a status and an empty body (docs/audit-api.md: 401, 404, 405, 413; corrupted JSON → 500). */
export class EmptyResponse extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string> = {},
    reason = `empty ${status} response`,
  ) {
    super(reason);
    this.name = 'EmptyResponse';
  }
}
