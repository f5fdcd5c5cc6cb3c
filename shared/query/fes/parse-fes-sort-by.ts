/**
 * FES SortBy (`ogc:SortBy` in CSW 2.0.2, `fes:SortBy` in CSW 3.0) → sort keys. Property names
 * are kept as written; the CSW layer checks them against the sortable queryables.
 */
import { InvalidParameterError } from '../../errors/index.js';
import { parseXml, XmlParseError, type XmlElement, type XmlLimits } from '../../xml/index.js';
import type { SortKey } from '../search-query.js';
import { describeElement, fesVersionOf } from './fes-names.js';

const LOCATOR = 'SortBy';

function isFes(element: XmlElement): boolean {
  return element.ns === '' || fesVersionOf(element) !== undefined;
}

function parseSortProperty(element: XmlElement): SortKey {
  let field: string | undefined;
  let direction: SortKey['direction'] = 'asc';
  let seenOrder = false;
  for (const item of element.children) {
    if (!isFes(item)) {
      throw new InvalidParameterError(LOCATOR, `Unsupported element ${describeElement(item)}`);
    }
    if (item.local === 'PropertyName' || item.local === 'ValueReference') {
      const name = item.text.trim();
      if (field !== undefined || name === '' || item.children.length > 0) {
        throw new InvalidParameterError(
          LOCATOR,
          `${describeElement(element)} needs exactly one non-empty ${item.local}`,
        );
      }
      field = name;
    } else if (item.local === 'SortOrder') {
      const order = item.text.trim().toUpperCase();
      if (seenOrder || (order !== 'ASC' && order !== 'DESC')) {
        throw new InvalidParameterError(
          LOCATOR,
          `SortOrder must be given once, as ASC or DESC, got "${item.text.trim()}"`,
        );
      }
      seenOrder = true;
      direction = order === 'DESC' ? 'desc' : 'asc';
    } else {
      throw new InvalidParameterError(LOCATOR, `Unsupported element ${describeElement(item)}`);
    }
  }
  if (field === undefined) {
    throw new InvalidParameterError(
      LOCATOR,
      `${describeElement(element)} needs a PropertyName or ValueReference`,
    );
  }
  return { field, direction };
}

function readRoot(input: string | XmlElement, xmlLimits?: Partial<XmlLimits>): XmlElement {
  if (typeof input !== 'string') return input;
  try {
    return parseXml(input, xmlLimits).root;
  } catch (error) {
    if (error instanceof XmlParseError) {
      throw new InvalidParameterError(LOCATOR, `SortBy rejected: ${error.message}`, {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * Parses a FES SortBy element (or its XML text) into sort keys in priority order, with the
 * property names as written; SortOrder is ASC (default) or DESC. Errors are
 * InvalidParameterErrors located at `SortBy`.
 */
export function parseFesSortBy(
  input: string | XmlElement,
  xmlLimits?: Partial<XmlLimits>,
): SortKey[] {
  const root = readRoot(input, xmlLimits);
  if (root.local !== 'SortBy' || !isFes(root)) {
    throw new InvalidParameterError(
      LOCATOR,
      `Expected a SortBy element, found ${describeElement(root)}`,
    );
  }
  const keys = root.children.map((item) => {
    if (item.local !== 'SortProperty' || !isFes(item)) {
      throw new InvalidParameterError(LOCATOR, `Unsupported element ${describeElement(item)}`);
    }
    return parseSortProperty(item);
  });
  if (keys.length === 0) throw new InvalidParameterError(LOCATOR, 'SortBy has no SortProperty');
  return keys;
}
