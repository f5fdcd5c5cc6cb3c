/**
 * The OpenSearch description document (OpenSearch 1.1 with the Geo, Time, EO and Parameter
 * extensions) of the catalogue. Its templates point at the CSW 3.0 GetRecords operation: one
 * answering with an Atom feed (`mode=opensearch`), one with the CSW XML response
 * (`outputschema=http://www.opengis.net/cat/csw/3.0`), as CSW 3.0 Requirements 022/023 ask.
 * Pure.
 */
import type { ServiceMetadata } from '../../../../shared/config/index.js';
import { OPENSEARCH_PARAMETERS } from '../../../../shared/query/opensearch/index.js';
import { createDocument, serialise } from '../../../../shared/records/writers/xml/index.js';
import {
  declareNamespaces,
  xmlAttributes,
  xmlText,
  type XmlNode,
} from '../../../../shared/records/writers/xml/xml-builder.js';
import { NS } from '../../../../shared/xml/index.js';
import { TEMPLATE_URL_NAMES } from './parse.js';
import { OPENSEARCH_NS } from './present.js';

/** Media type of OpenSearch description documents. */
export const OPENSEARCH_DESCRIPTION_TYPE = 'application/opensearchdescription+xml';

/** Template parameters, in template order (all optional): the terms, paging, then the rest. */
const TEMPLATE_PARAMETERS: readonly string[] = [
  'searchTerms',
  'count',
  'startIndex',
  'startPage',
  ...OPENSEARCH_PARAMETERS.filter((name) => name !== 'searchTerms'),
];

/** The URL name of a template parameter (the EO parameters keep their own name). */
function urlName(parameter: string): string {
  return TEMPLATE_URL_NAMES[parameter] ?? parameter;
}

/** Allowed values advertised through the Parameter extension. */
const PARAMETER_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  'geo:relation': ['intersects', 'contains', 'disjoint', 'within', 'equals'],
  'time:relation': ['intersects', 'during', 'disjoint', 'equals'],
  'eo:orbitDirection': ['ASCENDING', 'DESCENDING'],
};

export interface DescriptionOptions {
  service: ServiceMetadata;
  /** The CSW endpoint the templates call. */
  cswEndpoint: string;
  /** This document's own URL. */
  selfUrl: string;
  /** Search terms of the example query (chosen so that it finds records). */
  exampleTerms: string;
}

/** Builds a results template URL for the CSW endpoint. */
export function buildTemplate(cswEndpoint: string, fixed: readonly [string, string][]): string {
  const parts = fixed.map(([name, value]) => `${name}=${value}`);
  for (const parameter of TEMPLATE_PARAMETERS) {
    parts.push(`${urlName(parameter)}={${parameter}?}`);
  }
  return `${cswEndpoint}?${parts.join('&')}`;
}

function appendParameters(url: XmlNode): void {
  for (const parameter of TEMPLATE_PARAMETERS) {
    const attributes: Record<string, string> = {
      name: urlName(parameter),
      value: `{${parameter}}`,
      minimum: '0',
    };
    if (parameter === 'eo:cloudCover' || parameter === 'eo:snowCover') {
      attributes.minInclusive = '0';
      attributes.maxInclusive = '100';
    }
    const element = url.ele(OPENSEARCH_NS.param, 'param:Parameter', xmlAttributes(attributes));
    for (const value of PARAMETER_OPTIONS[parameter] ?? []) {
      element.ele(OPENSEARCH_NS.param, 'param:Option', { value }).up();
    }
    element.up();
  }
}

function truncate(text: string, length: number): string {
  const characters = [...text];
  return characters.length <= length ? text : `${characters.slice(0, length - 1).join('')}…`;
}

/** Writes the OpenSearch description document. */
export function presentOpenSearchDescription(options: DescriptionOptions): string {
  const { service } = options;
  const document = createDocument();
  const os = OPENSEARCH_NS.os;
  const root = document.ele(os, 'OpenSearchDescription');
  declareNamespaces(root, {
    geo: OPENSEARCH_NS.geo,
    time: OPENSEARCH_NS.time,
    eo: OPENSEARCH_NS.eo,
    param: OPENSEARCH_NS.param,
    atom: NS.atom,
  });
  const text = (name: string, value: string | undefined): void => {
    if (value !== undefined && value !== '') root.ele(os, name).txt(xmlText(value)).up();
  };
  text('ShortName', truncate(service.title, 16));
  text('Description', truncate(service.description, 1024));
  text('Contact', service.contact.email);
  text('Tags', truncate(service.keywords.map((word) => word.replace(/\s+/g, '-')).join(' '), 256));
  text('LongName', truncate(service.title, 48));
  const common: [string, string][] = [
    ['service', 'CSW'],
    ['version', '3.0.0'],
    ['request', 'GetRecords'],
    ['typenames', 'csw:Record'],
    ['elementsetname', 'full'],
  ];
  const templates: [string, [string, string][]][] = [
    [
      'application/atom+xml',
      [...common, ['outputformat', 'application/atom+xml'], ['mode', 'opensearch']],
    ],
    [
      'application/xml',
      [...common, ['outputformat', 'application/xml'], ['outputschema', NS.csw30]],
    ],
  ];
  for (const [type, fixed] of templates) {
    const url = root.ele(
      os,
      'Url',
      xmlAttributes({
        type,
        rel: 'results',
        template: buildTemplate(options.cswEndpoint, fixed),
        indexOffset: '1',
        pageOffset: '1',
      }),
    );
    appendParameters(url);
    url.up();
  }
  root
    .ele(
      os,
      'Url',
      xmlAttributes({
        type: 'application/opensearchdescription+xml',
        rel: 'self',
        template: options.selfUrl,
      }),
    )
    .up();
  root.ele(os, 'Query', xmlAttributes({ role: 'example', searchTerms: options.exampleTerms })).up();
  text('Developer', service.provider.name);
  text('Attribution', truncate(`${service.provider.name}. ${service.license}`, 256));
  text('SyndicationRight', 'open');
  text('AdultContent', 'false');
  text('Language', 'en');
  text('InputEncoding', 'UTF-8');
  text('OutputEncoding', 'UTF-8');
  return serialise(document);
}
