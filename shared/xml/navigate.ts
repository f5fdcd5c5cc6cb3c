/**
 * Small, prefix-agnostic helpers to read a parsed XML tree: elements and attributes are named by
 * namespace URI + local name (`XmlName`), never by the prefix a document happened to use.
 */
import type { XmlDocument, XmlElement } from './parse-xml.js';

/**
 * A qualified name to match. `local` '*' matches any local name and `ns` '*' any namespace;
 * `alternatives` lists other namespace URIs that also match (versions of the same schema).
 */
export interface XmlName {
  readonly ns: string;
  readonly local: string;
  readonly alternatives?: readonly string[];
}

/** Wildcard matching any element. */
export const ANY_ELEMENT: XmlName = Object.freeze({ ns: '*', local: '*' });

/** Builds an XmlName. */
export function xmlName(ns: string, local: string, alternatives?: readonly string[]): XmlName {
  return alternatives === undefined || alternatives.length === 0
    ? { ns, local }
    : { ns, local, alternatives };
}

/** Returns a factory of names in one namespace (plus equivalent namespace URIs), e.g. `gmd('title')`. */
export function namespace(uri: string, ...alternatives: string[]): (local: string) => XmlName {
  const cache = new Map<string, XmlName>();
  return (local: string) => {
    let name = cache.get(local);
    if (name === undefined) {
      name = xmlName(uri, local, alternatives);
      cache.set(local, name);
    }
    return name;
  };
}

/** True when the element has the given namespace and local name. */
export function isElement(element: XmlElement, name: XmlName): boolean {
  if (element.local !== name.local && name.local !== '*') return false;
  if (element.ns === name.ns || name.ns === '*') return true;
  return name.alternatives !== undefined && name.alternatives.includes(element.ns);
}

/** True when a name needs the general matcher (wildcards or alternative namespaces). */
function isGeneral(name: XmlName): boolean {
  return name.local === '*' || name.ns === '*' || name.alternatives !== undefined;
}

/** First child element with the given name, or undefined. */
export function child(element: XmlElement | undefined, name: XmlName): XmlElement | undefined {
  if (element === undefined) return undefined;
  const list = element.children;
  if (isGeneral(name)) return list.find((candidate) => isElement(candidate, name));
  const { local, ns } = name;
  for (const candidate of list) {
    if (candidate.local === local && candidate.ns === ns) return candidate;
  }
  return undefined;
}

/** All child elements with the given name (all children when no name is given). */
export function children(element: XmlElement | undefined, name?: XmlName): XmlElement[] {
  if (element === undefined) return [];
  if (name === undefined) return element.children.slice();
  const result: XmlElement[] = [];
  collectChildren(element, name, result);
  return result;
}

function collectChildren(element: XmlElement, name: XmlName, into: XmlElement[]): void {
  const list = element.children;
  if (isGeneral(name)) {
    for (const candidate of list) if (isElement(candidate, name)) into.push(candidate);
    return;
  }
  const { local, ns } = name;
  for (const candidate of list) {
    if (candidate.local === local && candidate.ns === ns) into.push(candidate);
  }
}

/** The element's own text, trimmed; undefined when the element is absent or the text empty. */
export function text(element: XmlElement | undefined): string | undefined {
  if (element === undefined) return undefined;
  const value = element.text.trim();
  return value === '' ? undefined : value;
}

/** An attribute's value by namespace URI ('' for unqualified) and local name. */
export function attr(
  element: XmlElement | undefined,
  ns: string,
  local: string,
): string | undefined {
  if (element === undefined) return undefined;
  for (const attribute of element.attributes) {
    if (attribute.local === local && attribute.ns === ns) return attribute.value;
  }
  return undefined;
}

/** The first element reached by following child steps from `element`, trying every branch. */
export function find(element: XmlElement | undefined, ...steps: XmlName[]): XmlElement | undefined {
  if (element === undefined) return undefined;
  return findFrom(element, steps, 0);
}

function findFrom(element: XmlElement, steps: XmlName[], index: number): XmlElement | undefined {
  const step = steps[index];
  if (step === undefined) return element;
  const general = isGeneral(step);
  for (const candidate of element.children) {
    const matches = general
      ? isElement(candidate, step)
      : candidate.local === step.local && candidate.ns === step.ns;
    if (!matches) continue;
    const found = findFrom(candidate, steps, index + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Every element reached by following child steps from `element`, in document order. */
export function findAll(element: XmlElement | undefined, ...steps: XmlName[]): XmlElement[] {
  if (element === undefined) return [];
  let level: XmlElement[] = [element];
  for (const step of steps) {
    const next: XmlElement[] = [];
    for (const node of level) collectChildren(node, step, next);
    if (next.length === 0) return next;
    level = next;
  }
  return level;
}

/** Trimmed text of the first element reached by the steps. */
export function findText(element: XmlElement | undefined, ...steps: XmlName[]): string | undefined {
  return text(find(element, ...steps));
}

/** All descendants (not the element itself) with the given name, in document order. */
export function descendants(element: XmlElement | undefined, name: XmlName): XmlElement[] {
  const result: XmlElement[] = [];
  if (element === undefined) return result;
  const stack: XmlElement[] = element.children.toReversed();
  while (stack.length > 0) {
    const node = stack.pop() as XmlElement;
    if (isElement(node, name)) result.push(node);
    for (const item of node.children.toReversed()) stack.push(item);
  }
  return result;
}

/** All text in the element and its descendants, in document order, with whitespace collapsed. */
export function deepText(element: XmlElement | undefined): string | undefined {
  if (element === undefined) return undefined;
  const parts: string[] = [];
  const walk = (node: XmlElement): void => {
    parts.push(node.text);
    for (const item of node.children) walk(item);
  };
  walk(element);
  const value = parts.join(' ').replace(/\s+/g, ' ').trim();
  return value === '' ? undefined : value;
}

/** The namespace URI a prefix is bound to at `element` ('' for the default namespace). */
export function lookupNamespace(element: XmlElement, prefix: string): string | undefined {
  if (prefix === 'xml') return 'http://www.w3.org/XML/1998/namespace';
  for (let node: XmlElement | null = element; node !== null; node = node.parent) {
    const declared = node.namespaces?.[prefix];
    if (declared !== undefined) return declared;
  }
  return undefined;
}

/**
 * The element as a standalone XML text: its exact characters in the source, with the namespace
 * declarations it inherits from its ancestors added to its start tag, so that a record cut out of
 * a wrapper (e.g. a csw:GetRecordsResponse) stays a well-formed, namespace-complete document.
 */
export function elementSource(document: XmlDocument, element: XmlElement): string {
  const { source } = document;
  const start = source.lastIndexOf('<', element.startTagEnd - 1);
  const raw = source.slice(start, element.end);
  if (element.parent === null) return raw;
  const inherited = new Map<string, string>();
  for (let node: XmlElement | null = element.parent; node !== null; node = node.parent) {
    if (node.namespaces === null) continue;
    for (const [prefix, uri] of Object.entries(node.namespaces)) {
      if (!inherited.has(prefix)) inherited.set(prefix, uri);
    }
  }
  const own = element.namespaces ?? {};
  const additions: string[] = [];
  for (const [prefix, uri] of inherited) {
    if (prefix in own) continue;
    const escaped = uri.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    additions.push(prefix === '' ? ` xmlns="${escaped}"` : ` xmlns:${prefix}="${escaped}"`);
  }
  if (additions.length === 0) return raw;
  const nameEnd = raw.search(/[\s/>]/);
  return raw.slice(0, nameEnd) + additions.join('') + raw.slice(nameEnd);
}
