/**
 * The size limits of an XML document, checked by one linear scan of the text before the
 * validator or the parser builds anything (docs/security.md F2): elements in the document,
 * attributes on one element, namespace declarations in the document. The scan only counts; it
 * leaves well-formedness to the validator that runs next, so on markup it does not understand
 * it moves on one character and never loops or backtracks.
 */
import { ErrorCodes, xmlError } from './audit-errors.js';

export interface XmlLimits {
  /** Nesting depth (enforced by the parser). */
  maxDepth: number;
  /** Elements in the whole document. */
  maxElements: number;
  /** Attributes on one element, namespace declarations included. */
  maxAttributes: number;
  /** `xmlns` and `xmlns:p` declarations in the whole document. */
  maxNamespaceDeclarations: number;
}

/**
 * Search and enum bodies: a search holds at most 64 conditions (shared/audit-filters.ts) of at
 * most three elements (When, From, To) with one attribute (Operator) besides namespace ones.
 * Within these caps the worst 64 KiB body parses in a few milliseconds (docs/security.md F2).
 */
export const READ_BODY_XML_LIMITS: XmlLimits = {
  maxDepth: 8,
  maxElements: 512,
  maxAttributes: 8,
  maxNamespaceDeclarations: 16,
};

/**
 * Write bodies: up to 1,000 records (record-input.ts), each with its fields and details; 100
 * elements a record on average leaves room for a DetailList of about 18 details each.
 */
export const WRITE_BODY_XML_LIMITS: XmlLimits = {
  maxDepth: 8,
  maxElements: 100_000,
  maxAttributes: 32,
  maxNamespaceDeclarations: 16,
};

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function tooMany(what: string, limit: number): never {
  throw xmlError(ErrorCodes.xmlLimit, `the document holds more than ${limit} ${what}, the limit of this request`);
}

/** Throws XMLError naming the limit when `text` goes past one of `limits`. */
export function countXmlMarkup(text: string, limits: XmlLimits): void {
  let elements = 0;
  let declarations = 0;
  let i = text.indexOf('<');
  while (i !== -1 && i < text.length) {
    if (text.startsWith('<!--', i)) {
      i = text.indexOf('-->', i + 4);
      if (i === -1) return;
      i = text.indexOf('<', i + 3);
      continue;
    }
    if (text.startsWith('<![CDATA[', i)) {
      i = text.indexOf(']]>', i + 9);
      if (i === -1) return;
      i = text.indexOf('<', i + 3);
      continue;
    }
    const next = text.charCodeAt(i + 1);
    if (next === 0x2f /* / */ || next === 0x3f /* ? */ || next === 0x21 /* ! */) {
      i = text.indexOf('<', i + 1);
      continue;
    }
    // A start tag: its name, then attributes up to `>` (quoted values may hold `>`).
    if (++elements > limits.maxElements) tooMany('elements', limits.maxElements);
    let at = i + 1;
    while (at < text.length && !WHITESPACE.has(text.charCodeAt(at)) && text[at] !== '>' && text[at] !== '/') at++;
    let attributes = 0;
    for (;;) {
      while (at < text.length && WHITESPACE.has(text.charCodeAt(at))) at++;
      if (at >= text.length || text[at] === '>' || text[at] === '<') break;
      if (text[at] === '/') {
        at++;
        continue;
      }
      const nameStart = at;
      while (at < text.length && !WHITESPACE.has(text.charCodeAt(at)) && !'=>/<'.includes(text[at]!)) at++;
      if (at === nameStart) {
        at++; // a stray `=`: not well-formed; the validator will say so
        continue;
      }
      if (++attributes > limits.maxAttributes) tooMany('attributes on one element', limits.maxAttributes);
      const name = text.slice(nameStart, Math.min(at, nameStart + 6));
      if (name === 'xmlns' ? at - nameStart === 5 : name === 'xmlns:') {
        if (++declarations > limits.maxNamespaceDeclarations) {
          tooMany('namespace declarations', limits.maxNamespaceDeclarations);
        }
      }
      while (at < text.length && WHITESPACE.has(text.charCodeAt(at))) at++;
      if (text[at] !== '=') continue;
      at++;
      while (at < text.length && WHITESPACE.has(text.charCodeAt(at))) at++;
      const quote = text[at];
      if (quote === '"' || quote === "'") {
        const close = text.indexOf(quote, at + 1);
        if (close === -1) return; // an unterminated value: not well-formed
        at = close + 1;
      }
    }
    i = text.indexOf('<', at);
  }
}
