/**
 * The XML body of an Active Directory monitoring policy (docs/agent-api.md): it must be one
 * well-formed document. It goes through the audit API's safe reader (agent/audit/xml-document.ts,
 * docs/security.md): DOCTYPE and ENTITY declarations refused up front (no XXE, no entity bombs),
 * forbidden characters refused, fast-xml-parser's validator for well-formedness with line and
 * column, then a parse with entities off and a nesting limit.
 *
 * A policy posted as raw XML takes its name, description, path and enabled state from the
 * document when it holds them: child elements or attributes of the root named `Name`,
 * `Description`, `Path`, `Enabled` or `IsEnabled` (any case). Ids and GUIDs in the XML are
 * ignored: the agent assigns its own (docs/agent-api.md).
 *
 * A policy of kind Changes holds one `<Changes>` element (docs/directory.md) with any of
 * `<Operation>` (Added, Removed, Modified, Moved, Renamed), `<Context>` (a DN), `<Class>` (an
 * objectClass) and `<ExcludeAttribute>` (an attribute name); anything else in it, or a value
 * that is not one of those, refuses the policy with 400 naming the element.
 */
import { AuditError } from '../audit/audit-errors.js';
import { parseXmlDocument, type XmlElement } from '../audit/xml-document.js';
import type { XmlLimits } from '../audit/xml-limits.js';
import { POLICY_XML_MAX } from '../config/directory-schema.js';
import { invalidField } from '../util/service-error.js';
import { DIRECTORY_ACTIONS, type ChangesSelection, type DirectoryAction } from '../directory/changes-selection.js';

/**
 * Depth: fast-xml-parser's own default. Elements: a 256 KiB policy of real settings holds a few
 * thousand; the cap keeps the tree of the largest one to a few milliseconds (docs/security.md F2).
 */
export const POLICY_XML_LIMITS: XmlLimits = {
  maxDepth: 100,
  maxElements: 20_000,
  maxAttributes: 64,
  maxNamespaceDeclarations: 16,
};

/**
 * The policy document as elements. The size limit of settings.json's schema is checked first:
 * nothing larger is parsed at all.
 */
export function parsePolicyXml(xml: string, field = 'xml'): XmlElement {
  if (xml.length > POLICY_XML_MAX) {
    throw invalidField(field, `the policy XML is longer than ${POLICY_XML_MAX} characters`);
  }
  let root: XmlElement;
  try {
    root = parseXmlDocument(xml, POLICY_XML_LIMITS);
  } catch (error) {
    if (!(error instanceof AuditError)) throw error;
    const where = error.location ? ` (${error.location})` : '';
    throw invalidField(field, `the policy XML is not a well-formed document: ${error.detail}${where}`);
  }
  changesSelectionOf(root, field);
  return root;
}

/** A DN as RFC 4514 writes it: `type=value` pairs separated by commas. */
const DN_SHAPE = /^\s*[A-Za-z][\w.-]*\s*=[^,]*(,\s*[A-Za-z][\w.-]*\s*=[^,]*)*$/;
/** An attribute type or objectClass name (RFC 4512 section 1.4, descr or numeric OID). */
const NAME_SHAPE = /^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)+)$/;

/**
 * The selection of a Changes policy, or null when the policy has no `<Changes>` element.
 * Throws 400 naming the element that does not parse.
 */
export function changesSelectionOf(root: XmlElement, field = 'xml'): ChangesSelection | null {
  const changes = root.children.filter((c) => c.name === 'Changes');
  if (changes.length === 0) return null;
  if (changes.length > 1) throw invalidField(field, 'the policy XML has more than one Changes element');
  const selection: ChangesSelection = { operations: [], contexts: [], classes: [], excludeAttributes: [] };
  for (const child of changes[0]!.children) {
    const value = child.text.trim();
    const bad = (what: string): Error => invalidField(field, `${child.path}: "${value}" is not ${what}`);
    switch (child.name) {
      case 'Operation': {
        const action = DIRECTORY_ACTIONS.find((a) => a.toLowerCase() === value.toLowerCase());
        if (!action) throw bad(`an operation (${DIRECTORY_ACTIONS.join(', ')})`);
        selection.operations.push(action as DirectoryAction);
        break;
      }
      case 'Context':
        if (!DN_SHAPE.test(value)) throw bad('a distinguished name such as ou=people,dc=example,dc=com');
        selection.contexts.push(value);
        break;
      case 'Class':
        if (!NAME_SHAPE.test(value)) throw bad('an objectClass name');
        selection.classes.push(value);
        break;
      case 'ExcludeAttribute':
        if (!NAME_SHAPE.test(value)) throw bad('an attribute name');
        selection.excludeAttributes.push(value);
        break;
      default:
        throw invalidField(
          field,
          `${child.path}: Changes holds only Operation, Context, Class and ExcludeAttribute elements`,
        );
    }
  }
  return selection;
}

export interface PolicyXmlFields {
  name?: string;
  description?: string;
  path?: string;
  isEnabled?: boolean;
}

function valueOf(root: XmlElement, names: readonly string[]): string | undefined {
  for (const name of names) {
    const lower = name.toLowerCase();
    for (const [attribute, value] of root.attributes) if (attribute.toLowerCase() === lower) return value;
    const child = root.children.find((c) => c.name.toLowerCase() === lower && c.children.length === 0);
    if (child) return child.text;
  }
  return undefined;
}

/** The fields a policy document names about itself (see the file comment). */
export function policyFieldsFromXml(root: XmlElement): PolicyXmlFields {
  const out: PolicyXmlFields = {};
  const name = valueOf(root, ['Name']);
  if (name !== undefined && name.trim() !== '') out.name = name.trim();
  const description = valueOf(root, ['Description']);
  if (description !== undefined) out.description = description;
  const path = valueOf(root, ['Path']);
  if (path !== undefined) out.path = path;
  const enabled = valueOf(root, ['IsEnabled', 'Enabled']);
  if (enabled !== undefined && /^(true|false|1|0)$/i.test(enabled.trim())) {
    out.isEnabled = /^(true|1)$/i.test(enabled.trim());
  }
  return out;
}

/** Whether a stored policy is of kind Changes (one that no longer parses is not). */
export function isChangesPolicy(xml: string): boolean {
  try {
    return changesSelectionOf(parsePolicyXml(xml)) !== null;
  } catch {
    return false;
  }
}
