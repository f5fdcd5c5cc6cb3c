/**
 * The OpenAPI 3.0 definition of Cairn: every endpoint under /catalogue (OGC API – Records,
 * STAC item search, CSW 2.0.2/3.0.0 with its OpenSearch mode, the OpenSearch description),
 * the write and admin endpoints and the health endpoints. Served at /catalogue/openapi and
 * used to validate requests.
 *
 * Assembled in one pass from typed parts, one per protocol (common, records, stac, csw,
 * admin), and frozen: nothing is patched afterwards. The parts take their parameter names,
 * bounds and enums from the parsers' constants and the configured limits.
 */
import type { ServiceMetadata } from '../../../shared/config/index.js';
import { deepFreeze } from '../../../shared/deep-freeze.js';
import { buildAdminPaths, buildHealthPaths } from './admin.js';
import {
  buildCommonSchemas,
  buildErrorResponses,
  type DocumentPurpose,
  type OpenApiDocument,
  type Paths,
} from './common.js';
import { buildCswPaths } from './csw.js';
import {
  buildRecordsParameters,
  buildRecordsPaths,
  buildRecordsSchemas,
  type PageLimits,
} from './records.js';
import { buildStacPaths, buildStacSchemas } from './stac.js';

export { OPENAPI_MEDIA_TYPE } from './common.js';
export { queryableParameterNames } from './records.js';
export type { OpenApiDocument } from './common.js';

export interface OpenApiOptions {
  /** Public URL of the catalogue root (…/catalogue), the document's server. */
  serverUrl: string;
  /** Public URL of the deployment root, where /healthz and /readyz live. */
  rootUrl: string;
  service: Pick<ServiceMetadata, 'title' | 'description' | 'contact' | 'license'>;
  version: string;
  /** Page sizes (`limit` default and maximum); the configured LIMIT_DEFAULT and LIMIT_MAX. */
  limits?: PageLimits;
}

/** Page sizes when the caller does not say (the configuration's defaults). */
const DEFAULT_LIMITS: PageLimits = { defaultLimit: 10, maxLimit: 1000 };

const TAGS = [
  {
    name: 'OGC API – Records',
    description: 'Landing page, conformance, the catalogue and its records',
  },
  { name: 'STAC API', description: 'STAC API item search' },
  { name: 'CSW and OpenSearch', description: 'CSW 2.0.2 / 3.0.0 and OpenSearch' },
  { name: 'Writes and admin', description: 'Record transactions, bulk ingest, job log' },
  { name: 'Operations', description: 'Health' },
];

function buildInfo(options: OpenApiOptions): OpenApiDocument['info'] {
  const { service } = options;
  const contact = service.contact;
  return {
    title: service.title,
    description: `${service.description}\n\nOGC API – Records (Part 1, with facets from Part 2), STAC API item search, CSW 2.0.2/3.0.0 and OpenSearch over one set of records.`,
    version: options.version,
    ...(contact?.email || contact?.url || contact?.name
      ? {
          contact: {
            ...(contact.name && { name: contact.name }),
            ...(contact.email && { email: contact.email }),
            ...(contact.url && { url: contact.url }),
          },
        }
      : {}),
    license: { name: service.license },
  };
}

/**
 * The paths of a document. Request validation covers the Records and STAC reads only: CSW
 * (case-insensitive KVP names), OpenSearch, health and the write and admin endpoints (mounted
 * before validation) parse their own requests.
 */
function buildPaths(options: OpenApiOptions, purpose: DocumentPurpose): Paths {
  const reads = { ...buildRecordsPaths(purpose), ...buildStacPaths() };
  if (purpose === 'validation') return reads;
  return {
    ...reads,
    ...buildCswPaths(),
    ...buildHealthPaths(options.rootUrl),
    ...buildAdminPaths(),
  };
}

function assemble(options: OpenApiOptions, purpose: DocumentPurpose): Readonly<OpenApiDocument> {
  return deepFreeze({
    openapi: '3.0.3',
    info: buildInfo(options),
    servers: [{ url: options.serverUrl, description: 'This catalogue' }],
    tags: TAGS.map((tag) => ({ ...tag })),
    paths: buildPaths(options, purpose),
    components: {
      schemas: { ...buildCommonSchemas(), ...buildRecordsSchemas(), ...buildStacSchemas() },
      parameters: buildRecordsParameters(options.limits ?? DEFAULT_LIMITS, purpose),
      responses: buildErrorResponses(),
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  });
}

/** Documents built so far, by purpose and options; a deployment has one or a few public URLs. */
const built = new Map<string, Readonly<OpenApiDocument>>();
const MAX_BUILT = 16;

/** The document for these options, assembled on first use (it is frozen, so it is shared). */
function assembleOnce(
  options: OpenApiOptions,
  purpose: DocumentPurpose,
): Readonly<OpenApiDocument> {
  const key = JSON.stringify([purpose, options]);
  let document = built.get(key);
  if (document === undefined) {
    document = assemble(options, purpose);
    if (built.size >= MAX_BUILT) built.delete(built.keys().next().value as string);
    built.set(key, document);
  }
  return document;
}

/** The OpenAPI 3.0 document of the whole API, as served at /catalogue/openapi. */
export function buildOpenApiDocument(options: OpenApiOptions): Readonly<OpenApiDocument> {
  return assembleOnce(options, 'served');
}

/**
 * The document the request validator uses: the Records and STAC reads only (searches by POST
 * take a CQL2 JSON body; record writes never reach the validator), and `limit` without its
 * maximum, since a larger limit is clamped (Features /req/core/fc-limit-response-1).
 */
export function buildValidationDocument(options: OpenApiOptions): Readonly<OpenApiDocument> {
  return assembleOnce(options, 'validation');
}
