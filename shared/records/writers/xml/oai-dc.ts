/**
 * A record as OAI-PMH's unqualified Dublin Core (`oai_dc:dc`, oai_dc.xsd): the fifteen DCMES
 * elements, plain text without attributes, as simpledc20021212.xsd allows. What goes where
 * follows the CSW csw:Record mapping (csw-record.ts) where Simple DC has the element.
 */
import type { CoreRecord } from '../../core-record.js';
import { NS } from '../../../xml/namespaces.js';
import {
  createDocument,
  declareNamespaces,
  formatDateOrDateTime,
  serialise,
  xmlText,
  type WriteOptions,
  type XmlNode,
} from './xml-builder.js';

export const OAI_DC_NS = 'http://www.openarchives.org/OAI/2.0/oai_dc/';
const OAI_DC_SCHEMA_LOCATION = `${OAI_DC_NS} http://www.openarchives.org/OAI/2.0/oai_dc.xsd`;
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

const CONTACT_ELEMENTS: [string, RegExp][] = [
  ['creator', /^(creator|originator|author|principalInvestigator)$/],
  ['publisher', /^publisher$/],
  ['contributor', /^(contributor|coAuthor|collaborator)$/],
];

/** The record's values for each Dublin Core element, in the schema's order, without repeats. */
export function dublinCoreValues(record: CoreRecord): [string, string[]][] {
  const names = (roles: RegExp): string[] =>
    record.contacts
      .filter((contact) => contact.roles?.some((role) => roles.test(role)))
      .map((contact) => contact.name ?? contact.organization)
      .filter((name): name is string => Boolean(name));
  const subjects = [
    ...record.keywords,
    ...record.themes.flatMap((theme) => theme.concepts.map((concept) => concept.id)),
  ];
  const coverage: string[] = [];
  if (record.bbox) coverage.push(`bbox ${record.bbox.join(' ')} (west south east north, WGS 84)`);
  if (record.time && (record.time.start !== null || record.time.end !== null))
    coverage.push(
      `${record.time.start === null ? '..' : formatDateOrDateTime(record.time.start)}/${record.time.end === null ? '..' : formatDateOrDateTime(record.time.end)}`,
    );
  const values: [string, (string | undefined)[]][] = [
    ['title', [record.title]],
    ['creator', names(CONTACT_ELEMENTS[0]![1])],
    ['subject', subjects],
    ['description', [record.description]],
    ['publisher', names(CONTACT_ELEMENTS[1]![1])],
    ['contributor', names(CONTACT_ELEMENTS[2]![1])],
    ['date', [record.updated ? formatDateOrDateTime(record.updated) : undefined]],
    ['type', [record.type]],
    ['format', record.formats.map((format) => format.name ?? format.mediaType)],
    ['identifier', [record.id, ...record.externalIds.map((external) => external.value)]],
    ['language', [record.language]],
    ['relation', record.links.map((link) => link.href)],
    ['coverage', coverage],
    ['rights', [record.rights, record.license]],
  ];
  return values.map(([element, list]) => [
    element,
    [...new Set(list.filter((value): value is string => Boolean(value)))],
  ]);
}

/** Appends the record as an `oai_dc:dc` element under `parent` and returns it. */
export function appendOaiDc(parent: XmlNode, record: CoreRecord): XmlNode {
  const root = parent.ele(OAI_DC_NS, 'oai_dc:dc');
  declareNamespaces(root, { oai_dc: OAI_DC_NS, dc: NS.dc, xsi: XSI });
  root.att(XSI, 'xsi:schemaLocation', OAI_DC_SCHEMA_LOCATION);
  for (const [element, values] of dublinCoreValues(record)) {
    for (const value of values) root.ele(NS.dc, `dc:${element}`).txt(xmlText(value)).up();
  }
  return root;
}

/** Writes the record as a standalone `oai_dc:dc` document. */
export function writeOaiDc(record: CoreRecord, options: WriteOptions = {}): string {
  const document = createDocument();
  appendOaiDc(document, record);
  return serialise(document, options);
}
