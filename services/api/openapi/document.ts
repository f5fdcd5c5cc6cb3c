/**
 * The OpenAPI 3.0 definition of Cairn: every endpoint under /catalogue (OGC API – Records,
 * STAC item search, CSW 2.0.2/3.0.0 with its OpenSearch mode, the OpenSearch description),
 * the write and admin endpoints and the health endpoints. Served at /catalogue/openapi and
 * used to validate requests.
 *
 * Assembled in one pass from the shared parts (common/openapi.ts) and the part each protocol
 * module gives (its `openapi`, in the order of PROTOCOLS, registry/protocols.ts), and frozen:
 * nothing is patched afterwards. The parts take their parameter names, bounds and enums from
 * the parsers' constants and the configured limits.
 */
import type { ServiceMetadata } from '../../../shared/config/index.js';
import { deepFreeze } from '../../../shared/deep-freeze.js';
import {
  buildCommonSchemas,
  buildErrorResponses,
  type DocumentPurpose,
  type OpenApiDocument,
  type PageLimits,
  type Parameter,
  type Paths,
  type Schema,
} from '../common/openapi.js';
import type { OpenApiPartOptions, Protocol } from '../protocols/protocol.js';
import { assembleTags, PROTOCOLS } from '../registry/protocols.js';

export { OPENAPI_MEDIA_TYPE } from '../common/openapi.js';
export { queryableParameterNames } from '../protocols/records/openapi.js';
export type { OpenApiDocument } from '../common/openapi.js';

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
 * Merges the parts the protocols give for one member of the document (paths, schemas,
 * parameters), in document order. Throws when two parts name the same entry, which would
 * otherwise replace one protocol's entry with another's.
 */
export function mergeParts<T>(
  member: string,
  parts: readonly (readonly [string, Readonly<Record<string, T>>])[],
): Record<string, T> {
  const merged: Record<string, T> = {};
  const owner = new Map<string, string>();
  for (const [protocol, part] of parts) {
    for (const [name, value] of Object.entries(part)) {
      const earlier = owner.get(name);
      if (earlier !== undefined)
        throw new Error(`OpenAPI ${member} "${name}" is given by both ${earlier} and ${protocol}`);
      owner.set(name, protocol);
      merged[name] = value;
    }
  }
  return merged;
}

/**
 * The document of `protocols`. Request validation covers only the protocols whose paths say
 * so (the Records and STAC reads): CSW (case-insensitive KVP names), OpenSearch, health and the
 * write and admin endpoints (mounted before validation) parse their own requests.
 */
export function assembleDocument(
  options: OpenApiOptions,
  purpose: DocumentPurpose,
  protocols: readonly Protocol[] = PROTOCOLS,
): OpenApiDocument {
  const part: OpenApiPartOptions = {
    purpose,
    rootUrl: options.rootUrl,
    limits: options.limits ?? DEFAULT_LIMITS,
  };
  const documented = protocols.filter(
    (protocol) => purpose === 'served' || protocol.openapi.validated,
  );
  return {
    openapi: '3.0.3',
    info: buildInfo(options),
    servers: [{ url: options.serverUrl, description: 'This catalogue' }],
    tags: assembleTags(protocols),
    paths: mergeParts<Paths[string]>(
      'path',
      documented.map((protocol) => [protocol.name, protocol.openapi.paths(part)]),
    ),
    components: {
      schemas: mergeParts<Schema>('schema', [
        ['common', buildCommonSchemas()],
        ...protocols.map(
          (protocol) => [protocol.name, protocol.openapi.schemas?.() ?? {}] as const,
        ),
      ]),
      parameters: mergeParts<Parameter>(
        'parameter',
        protocols.map((protocol) => [protocol.name, protocol.openapi.parameters?.(part) ?? {}]),
      ),
      responses: buildErrorResponses(),
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}

function assemble(options: OpenApiOptions, purpose: DocumentPurpose): Readonly<OpenApiDocument> {
  return deepFreeze(assembleDocument(options, purpose));
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
