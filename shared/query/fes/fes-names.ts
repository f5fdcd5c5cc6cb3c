/**
 * Namespaces and versions of OGC Filter Encoding as Cairn reads it: FES 1.1 (`ogc:`, used by
 * CSW 2.0.2, with GML 3.1.1) and FES 2.0 (`fes:`, used by CSW 3.0, with GML 3.2). Elements in
 * no namespace are accepted as the filter's own version (KVP constraints often omit xmlns).
 */
import { InvalidParameterError } from '../../errors/index.js';
import type { XmlElement } from '../../xml/index.js';

/** The Filter Encoding versions Cairn understands. */
export type FesVersion = '1.1' | '2.0';

/** Namespace URI of each FES version. */
export const FES_NAMESPACE: Readonly<Record<FesVersion, string>> = Object.freeze({
  '1.1': 'http://www.opengis.net/ogc',
  '2.0': 'http://www.opengis.net/fes/2.0',
});

/** GML 3.1.1 and GML 3.2: both are read whatever the filter version. */
export const GML_NAMESPACES: readonly string[] = [
  'http://www.opengis.net/gml',
  'http://www.opengis.net/gml/3.2',
];

/** The FES version whose namespace an element is in, if any. */
export function fesVersionOf(element: XmlElement): FesVersion | undefined {
  if (element.ns === FES_NAMESPACE['1.1']) return '1.1';
  if (element.ns === FES_NAMESPACE['2.0']) return '2.0';
  return undefined;
}

/**
 * Reads a filter version as CSW requests write it (`constraint_language_version`,
 * `Constraint@version`): 1.0.0 and 1.1.0 are FES 1.1 (the `ogc:` namespace), 2.0.x is FES 2.0.
 */
export function parseFesVersion(text: string, name = 'constraint_language_version'): FesVersion {
  const value = text.trim();
  if (/^1(\.[01](\.0)?)?$/.test(value)) return '1.1';
  if (/^2(\.0(\.\d+)?)?$/.test(value)) return '2.0';
  throw new InvalidParameterError(
    name,
    `${name} "${text}" is not a supported Filter Encoding version (1.1.0 or 2.0.0)`,
  );
}

/** How an element is named in error messages: as the document wrote it, plus its namespace. */
export function describeElement(element: XmlElement): string {
  const written = element.prefix === '' ? element.local : `${element.prefix}:${element.local}`;
  return element.ns === '' ? `"${written}"` : `"${written}" (${element.ns})`;
}
