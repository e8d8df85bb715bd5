/**
 * Untrusted XML in, a small element tree out (docs/security.md). In order:
 * 1. a DOCTYPE or ENTITY declaration anywhere is refused (no DTDs: no XXE, no entity bombs);
 * 2. characters XML 1.0 forbids are refused (the validator lets NUL through);
 * 3. one linear scan counts elements, attributes per element and namespace declarations, and
 *    refuses a document past the caller's limits before anything builds a tree (a root with
 *    thousands of declarations over thousands of children cost seconds: docs/security.md F2);
 * 4. fast-xml-parser's validator checks well-formedness and gives line and column;
 * 5. the parser runs with entities off, values as strings, and a nesting limit;
 * 6. the result becomes elements with resolved namespaces, the five XML entities and character
 *    references decoded by us (anything else is an error), CDATA kept literal. An element shares
 *    its parent's namespace scope unless it declares namespaces itself, so the tree costs time
 *    in proportion to the document, never declarations × elements.
 * The byte limit is applied before any of this, while the body is read (body-reader.ts).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ErrorCodes, xmlError, type ErrorCode } from './audit-errors.js';
import { countXmlMarkup, type XmlLimits } from './xml-limits.js';

export type { XmlLimits } from './xml-limits.js';

export interface XmlElement {
  /** Local name (no prefix). */
  name: string;
  /** Namespace URI, or null when the element is in no namespace. */
  namespace: string | null;
  /** Attributes other than namespace declarations and xsi:/xml: ones. */
  attributes: Map<string, string>;
  children: XmlElement[];
  /** Text content (entities decoded), trimmed. */
  text: string;
  /** Where the element is, for error locations: `/ActivityRecordList/ActivityRecord[3]/Who`. */
  path: string;
}

const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';
const CDATA = '__cdata';

function lineAndColumn(text: string, index: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return `line ${line}, column ${index - lineStart + 1}`;
}

/** XML 1.0 §2.2 Char: TAB, LF, CR and U+0020 upward, minus U+FFFE/U+FFFF and lone surrogates. */
function firstForbiddenCharacter(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 ? c !== 0x09 && c !== 0x0a && c !== 0x0d : c === 0xfffe || c === 0xffff) return i;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
      else return i;
    } else if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

const VALIDATOR_CODES: Record<string, ErrorCode> = {
  InvalidTag: ErrorCodes.xmlTagMismatch,
  InvalidAttr: ErrorCodes.xmlAttribute,
  InvalidChar: ErrorCodes.xmlCharacter,
  InvalidXml: ErrorCodes.xmlDocument,
};

const ENTITY = /&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9a-fA-F]{1,6}));|&/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function isXmlChar(cp: number): boolean {
  return (
    cp === 0x09 ||
    cp === 0x0a ||
    cp === 0x0d ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** Decodes XML's predefined entities and character references; anything else is an error. */
function decodeEntities(value: string, path: string): string {
  if (!value.includes('&')) return value;
  return value.replace(ENTITY, (whole, named: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (named) return NAMED[named]!;
    if (dec !== undefined || hex !== undefined) {
      const cp = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
      if (isXmlChar(cp)) return String.fromCodePoint(cp);
      throw xmlError(ErrorCodes.xmlEntity, `character reference ${whole} is not an allowed XML character`, path);
    }
    throw xmlError(
      ErrorCodes.xmlEntity,
      'an "&" that does not start &lt; &gt; &amp; &quot; &apos; or a character reference (other entities are not supported)',
      path,
    );
  });
}

type OrderedNode = Record<string, unknown>;

function makeParser(maxDepth: number): XMLParser {
  return new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    processEntities: false,
    htmlEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    removeNSPrefix: false,
    cdataPropName: CDATA,
    maxNestedTags: maxDepth,
  });
}

const parsers = new Map<number, XMLParser>();

/**
 * Parses a whole request body. Throws AuditError (XMLError) with the reason and, for syntax
 * errors, `line L, column C` as Location.
 */
export function parseXmlDocument(input: string, limits: XmlLimits): XmlElement {
  const { maxDepth } = limits;
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const dtd = text.search(/<!(DOCTYPE|ENTITY)/i);
  if (dtd !== -1) {
    throw xmlError(
      ErrorCodes.xmlDtdProhibited,
      'DTDs are not allowed: the body contains a DOCTYPE or ENTITY declaration',
      lineAndColumn(text, dtd),
    );
  }
  const bad = firstForbiddenCharacter(text);
  if (bad !== -1) {
    const code = text.charCodeAt(bad).toString(16).toUpperCase().padStart(4, '0');
    throw xmlError(ErrorCodes.xmlCharacter, `character U+${code} is not allowed in XML`, lineAndColumn(text, bad));
  }
  countXmlMarkup(text, limits);
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (valid !== true) {
    const { code, msg, line, col } = valid.err;
    const location = line ? `line ${line}${col ? `, column ${col}` : ''}` : undefined;
    throw xmlError(VALIDATOR_CODES[code] ?? ErrorCodes.xmlDocument, msg, location);
  }
  let nodes: OrderedNode[];
  try {
    let parser = parsers.get(maxDepth);
    if (!parser) parsers.set(maxDepth, (parser = makeParser(maxDepth)));
    nodes = parser.parse(text) as OrderedNode[];
  } catch (error) {
    const message = (error as Error).message;
    if (/nested/i.test(message)) {
      throw xmlError(ErrorCodes.xmlLimit, `elements are nested deeper than ${maxDepth} levels`);
    }
    throw xmlError(ErrorCodes.xmlSchema, message);
  }
  const roots = nodes.filter((node) => elementName(node) !== null);
  if (roots.length !== 1) {
    throw xmlError(ErrorCodes.xmlDocument, `the body must hold exactly one root element, not ${roots.length}`);
  }
  return toElement(roots[0]!, ROOT_SCOPE, `/${elementName(roots[0]!)}`);
}

/** Prefix to namespace URI (null: no namespace); `''` is the default namespace. */
type Scope = ReadonlyMap<string, string | null>;
const ROOT_SCOPE: Scope = new Map([['', null]]);

/** The parent's scope itself when the element declares nothing; a copy only when it does. */
function scopeOf(rawAttributes: Record<string, string>, parentScope: Scope): Scope {
  let scope: Map<string, string | null> | null = null;
  for (const [name, value] of Object.entries(rawAttributes)) {
    if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue;
    scope ??= new Map(parentScope);
    if (name === 'xmlns') scope.set('', value === '' ? null : value);
    else scope.set(name.slice(6), value);
  }
  return scope ?? parentScope;
}

function elementName(node: OrderedNode): string | null {
  for (const key of Object.keys(node)) if (key !== ':@' && key !== '#text' && key !== CDATA) return key;
  return null;
}

function toElement(node: OrderedNode, parentScope: Scope, path: string): XmlElement {
  const qname = elementName(node)!;
  const rawAttributes = (node[':@'] ?? {}) as Record<string, string>;
  const scope = scopeOf(rawAttributes, parentScope);
  const attributes = new Map<string, string>();
  for (const [name, value] of Object.entries(rawAttributes)) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
    const colon = name.indexOf(':');
    if (colon !== -1) {
      const prefix = name.slice(0, colon);
      if (prefix === 'xml' || scope.get(prefix) === XSI_NAMESPACE) continue; // xml:lang, xsi:schemaLocation
    }
    attributes.set(name, decodeEntities(value, `${path}/@${name}`));
  }
  const colon = qname.indexOf(':');
  const prefix = colon === -1 ? '' : qname.slice(0, colon);
  if (!scope.has(prefix)) {
    throw xmlError(ErrorCodes.xmlSchema, `namespace prefix "${prefix}" is not declared`, path);
  }
  const element: XmlElement = {
    name: colon === -1 ? qname : qname.slice(colon + 1),
    namespace: scope.get(prefix) ?? null,
    attributes,
    children: [],
    text: '',
    path,
  };
  const childNodes = (node[qname] ?? []) as OrderedNode[];
  const totals = new Map<string, number>();
  for (const child of childNodes) {
    const name = elementName(child);
    if (name !== null) totals.set(name, (totals.get(name) ?? 0) + 1);
  }
  const seen = new Map<string, number>();
  let text = '';
  for (const child of childNodes) {
    const name = elementName(child);
    if (name !== null) {
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      element.children.push(
        toElement(child, scope, totals.get(name)! > 1 ? `${path}/${name}[${n}]` : `${path}/${name}`),
      );
    } else if (CDATA in child) {
      for (const part of child[CDATA] as OrderedNode[]) text += String(part['#text'] ?? '');
    } else if ('#text' in child) {
      text += decodeEntities(String(child['#text']), path);
    }
  }
  element.text = text.trim();
  return element;
}
