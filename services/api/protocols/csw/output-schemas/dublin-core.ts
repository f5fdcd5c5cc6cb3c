/**
 * csw:Record, the Dublin Core record of CSW (outputSchema: the version's CSW namespace): the
 * brief, summary or full element set, or the elements a request names (ElementName), chosen
 * from the full record.
 */
import type { CoreRecord } from '../../../../../shared/records/core-record.js';
import {
  appendCswRecord,
  appendParsedElement,
  writeCswRecord,
} from '../../../../../shared/records/writers/xml/index.js';
import {
  declareNamespaces,
  type XmlNode,
} from '../../../../../shared/records/writers/xml/xml-builder.js';
import { parseXml } from '../../../../../shared/xml/index.js';
import { CSW_NAMESPACE, CSW_NS, CSW_PREFIX, OWS_NAMESPACE, OWS_PREFIX } from '../csw-model.js';
import type { CswOutputSchema, RecordPlacement } from './output-schema.js';

/** Namespace equivalences for choosing elements (the record writer uses its version's OWS). */
function sameElement(
  wanted: { ns: string; local: string },
  element: { ns: string; local: string },
): boolean {
  if (wanted.local !== element.local) return false;
  const ows: string[] = [CSW_NS.ows, CSW_NS.ows20];
  const csw: string[] = [CSW_NS.csw202, CSW_NS.csw30];
  return (
    wanted.ns === element.ns ||
    (ows.includes(wanted.ns) && ows.includes(element.ns)) ||
    (csw.includes(wanted.ns) && csw.includes(element.ns))
  );
}

function appendRecord(
  parent: XmlNode,
  record: CoreRecord,
  { version, presentation, standalone }: RecordPlacement,
): void {
  if (presentation.kind === 'elementSet') {
    appendCswRecord(parent, record, {
      version,
      elementSet: presentation.elementSet,
      declareNamespaces: standalone,
    });
    return;
  }
  // Chosen elements: the full record, reduced to the requested children.
  const full = parseXml(
    writeCswRecord(record, { version, elementSet: 'full', prettyPrint: false, declaration: false }),
  ).root;
  const prefix = CSW_PREFIX[version];
  const reduced = parent.ele(CSW_NAMESPACE[version], `${prefix}:Record`);
  if (standalone) {
    declareNamespaces(reduced, {
      [prefix]: CSW_NAMESPACE[version],
      dc: CSW_NS.dc,
      dct: CSW_NS.dct,
      [OWS_PREFIX[version]]: OWS_NAMESPACE[version],
    });
  }
  for (const child of full.children) {
    if (presentation.names.some((name) => sameElement(name, child))) {
      appendParsedElement(reduced, child);
    }
  }
}

/** csw:Record in CSW 2.0.2 and 3.0. */
export const DUBLIN_CORE: CswOutputSchema = Object.freeze({
  title: 'csw:Record (Dublin Core)',
  namespaces: [CSW_NS.csw202, CSW_NS.csw30],
  responseNamespaces: {},
  appendRecord,
});
