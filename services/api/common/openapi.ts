/**
 * The typed building blocks every part of the OpenAPI document is made of: the OpenAPI 3.0
 * object types (from openapi-types), parameter and response builders, the schemas and error
 * responses shared by the Records and STAC parts, and a deep freeze for the finished document.
 * Every query parameter is made by `queryParameter`, so each one allows reserved characters
 * and empty values (the parsers judge those), which the types make impossible to forget.
 */
import type { OpenAPIV3 } from 'openapi-types';
import { HTML, JSON_TYPE } from './media-types.js';

/** Vendor extensions the document uses (express-openapi-validator's). */
export interface OperationExtensions {
  /** Names not listed are let through to the parser (queryables as `name=value`). */
  'x-eov-allow-unknown-query-parameters'?: boolean;
}

export type Schema = OpenAPIV3.SchemaObject;
export type Reference = OpenAPIV3.ReferenceObject;
export type Response = OpenAPIV3.ResponseObject;
export type Responses = Record<string, Response | Reference>;
export type Content = Record<string, OpenAPIV3.MediaTypeObject>;

/**
 * A query parameter. Values may carry reserved characters unencoded (`/` in intervals, `:` in
 * times and CURIEs, `,` in lists), as clients commonly send them, and may be empty: an empty
 * value is the parsers' to judge (STAC `fields=` is meaningful; `bbox=` is not).
 */
export interface QueryParameter extends OpenAPIV3.ParameterObject {
  in: 'query';
  required: false;
  allowReserved: true;
  allowEmptyValue: true;
  schema: Schema;
}

/** A path parameter (always required). */
export interface PathParameter extends OpenAPIV3.ParameterObject {
  in: 'path';
  required: true;
  schema: Schema;
}

export type Parameter = QueryParameter | PathParameter;

/** An operation whose parameters are built by the helpers here (or referenced). */
export type Operation = Omit<OpenAPIV3.OperationObject<OperationExtensions>, 'parameters'> & {
  parameters?: (Parameter | Reference)[];
};

/** A path item: its operations, and servers when it lives outside /catalogue. */
export interface PathItem {
  servers?: OpenAPIV3.ServerObject[];
  get?: Operation;
  post?: Operation;
  put?: Operation;
  delete?: Operation;
}

export type Paths = Record<string, PathItem>;

/** The OpenAPI 3.0 document Cairn serves. */
export type OpenApiDocument = OpenAPIV3.Document<OperationExtensions>;

/** Whether a part is built for the served document or for request validation. */
export type DocumentPurpose = 'served' | 'validation';

/** Page sizes: the configured LIMIT_DEFAULT and LIMIT_MAX. */
export interface PageLimits {
  defaultLimit: number;
  maxLimit: number;
}

export {
  FACETS_JSON,
  GEOJSON,
  HTML,
  JSON_LD,
  JSON_TYPE,
  OPENAPI_JSON as OPENAPI_MEDIA_TYPE,
  SCHEMA_JSON,
  XML,
} from './media-types.js';

/** A reference to a component. */
export function ref(kind: 'schemas' | 'parameters' | 'responses', name: string): Reference {
  return { $ref: `#/components/${kind}/${name}` };
}

/** Builds a query parameter (never required; see QueryParameter). */
export function queryParameter(
  name: string,
  description: string,
  schema: Schema = { type: 'string' },
  extra: Pick<OpenAPIV3.ParameterObject, 'style' | 'explode' | 'example'> = {},
): QueryParameter {
  return {
    name,
    in: 'query',
    required: false,
    description,
    ...extra,
    schema,
    allowReserved: true,
    allowEmptyValue: true,
  };
}

/** A string query parameter, with extra schema keywords (enum, pattern, format …). */
export function stringParameter(
  name: string,
  description: string,
  schema: Omit<OpenAPIV3.NonArraySchemaObject, 'type'> = {},
): QueryParameter {
  return queryParameter(name, description, { type: 'string', ...schema });
}

/** A comma-separated list parameter (form style, not exploded). */
export function listParameter(
  name: string,
  description: string,
  items: Omit<OpenAPIV3.NonArraySchemaObject, 'type'> = {},
): QueryParameter {
  return queryParameter(
    name,
    description,
    { type: 'array', items: { type: 'string', ...items } },
    { style: 'form', explode: false },
  );
}

/** An integer query parameter with its bounds (and default). */
export function integerParameter(
  name: string,
  description: string,
  bounds: { minimum?: number; maximum?: number; default?: number },
): QueryParameter {
  return queryParameter(name, description, { type: 'integer', ...bounds });
}

/** A path parameter. */
export function pathParameter(name: string, description: string, example?: string): PathParameter {
  return {
    name,
    in: 'path',
    required: true,
    description,
    schema: { type: 'string' },
    ...(example === undefined ? {} : { example }),
  };
}

/** The `f` parameter of an endpoint offering these encodings. */
export function formatParameter(formats: readonly string[], description: string): QueryParameter {
  return stringParameter(
    'f',
    `${description} Without f, the Accept header decides (text/html → HTML, JSON types → JSON; one accepting none of the offered types is a 406); without either, JSON.`,
    { enum: [...formats] },
  );
}

/** Content of one media type described by a schema component. */
export function jsonContent(schema: string, type = JSON_TYPE): Content {
  return { [type]: { schema: ref('schemas', schema) } };
}

/** Content of media types whose body is text (HTML, XML …). */
export function textContent(...types: string[]): Content {
  return Object.fromEntries(types.map((type) => [type, { schema: { type: 'string' } }]));
}

/** Content of media types whose body is some JSON object. */
export function objectContent(...types: string[]): Content {
  return Object.fromEntries(types.map((type) => [type, { schema: { type: 'object' } }]));
}

export const HTML_CONTENT: Content = textContent(HTML);

/** The error responses of every Records and STAC read (components/responses). */
export const ERROR_RESPONSES: Readonly<Responses> = {
  '400': ref('responses', 'BadRequest'),
  '406': ref('responses', 'NotAcceptable'),
  '500': ref('responses', 'ServerError'),
  '503': ref('responses', 'Unavailable'),
};

/** The standard error responses (components/responses): `{code, description}` or HTML. */
export function buildErrorResponses(): Record<string, Response> {
  const error = (description: string): Response => ({
    description,
    content: { ...jsonContent('Exception'), ...HTML_CONTENT },
  });
  return {
    BadRequest: error(
      'A parameter is unknown, repeated, malformed or out of range; the description names it.',
    ),
    NotFound: error('No such resource.'),
    NotAcceptable: {
      description:
        'The Accept header accepts none of the media types offered (and no `f` was given); the description names them.',
      content: jsonContent('Exception'),
    },
    ServerError: error('An internal error (details are logged, never shown).'),
    Unavailable: error('The search backend is unavailable; retry after the Retry-After delay.'),
  };
}

/** What a read operation says beyond its summary, parameters and 200 content. */
export interface ReadOptions {
  description?: string;
  /** The resource may not exist (404). */
  notFound?: boolean;
  /** The 200 response carries the Content-Crs header (OGC API – Features Part 2). */
  contentCrs?: boolean;
  allowUnknownQueryParameters?: boolean;
  requestBody?: OpenAPIV3.RequestBodyObject;
}

const CONTENT_CRS: OpenAPIV3.HeaderObject = {
  description: 'The CRS of the geometries and bboxes in the response (JSON), as `<uri>`.',
  schema: { type: 'string' },
};

/** A read operation (GET, or a search by POST) of the Records or STAC API. */
export function readOperation(
  summary: string,
  tag: string,
  parameters: (Parameter | Reference)[],
  content: Content,
  options: ReadOptions = {},
): Operation {
  const ok: Response = {
    description: summary,
    content,
    ...(options.contentCrs ? { headers: { 'Content-Crs': CONTENT_CRS } } : {}),
  };
  return {
    summary,
    ...(options.description === undefined ? {} : { description: options.description }),
    tags: [tag],
    parameters,
    ...(options.requestBody === undefined ? {} : { requestBody: options.requestBody }),
    responses: {
      '200': ok,
      ...ERROR_RESPONSES,
      ...(options.notFound ? { '404': ref('responses', 'NotFound') } : {}),
    },
    ...(options.allowUnknownQueryParameters
      ? { 'x-eov-allow-unknown-query-parameters': true }
      : {}),
  };
}

/** The `links` member of landing pages, collections and pages. */
export const LINKS: Schema = { type: 'array', items: ref('schemas', 'Link') };

/** A bbox: four numbers, or six with heights. */
export const BBOX_SCHEMA: OpenAPIV3.ArraySchemaObject = {
  type: 'array',
  minItems: 4,
  maxItems: 6,
  items: { type: 'number' },
};

/** The schemas the Records and STAC parts share (components/schemas). */
export function buildCommonSchemas(): Record<string, Schema> {
  return {
    Link: {
      type: 'object',
      required: ['href'],
      properties: Object.fromEntries(
        ['href', 'rel', 'type', 'title', 'hreflang', 'method'].map((name) => [
          name,
          { type: 'string' },
        ]),
      ),
    },
    Exception: {
      type: 'object',
      description: 'An error: a stable code and a description naming the parameter at fault.',
      required: ['code', 'description'],
      properties: { code: { type: 'string' }, description: { type: 'string' } },
      additionalProperties: false,
    },
    LandingPage: {
      type: 'object',
      required: ['links'],
      properties: {
        id: { type: 'string' },
        title: { type: 'string' },
        description: { type: 'string' },
        conformsTo: { type: 'array', items: { type: 'string' } },
        links: LINKS,
      },
    },
    ConformanceDeclaration: {
      type: 'object',
      required: ['conformsTo'],
      properties: { conformsTo: { type: 'array', items: { type: 'string' } } },
    },
    JsonSchemaDocument: {
      type: 'object',
      description: 'A queryables or sortables document (JSON Schema 2020-12).',
      required: ['$schema', '$id', 'type', 'properties'],
      properties: {
        $schema: { type: 'string' },
        $id: { type: 'string' },
        type: { type: 'string', enum: ['object'] },
        title: { type: 'string' },
        description: { type: 'string' },
        properties: { type: 'object', additionalProperties: { type: 'object' } },
        additionalProperties: { type: 'boolean' },
      },
    },
  };
}

/** A page of features or collections: the type, the counts, the members and the links. */
export function pageSchema(
  members: 'features' | 'collections',
  items: Schema | Reference,
  extra: Pick<Schema, 'description' | 'required'> & { properties?: Schema['properties'] } = {},
): Schema {
  return {
    type: 'object',
    ...(extra.description === undefined ? {} : { description: extra.description }),
    required: extra.required ?? [members, 'links'],
    properties: {
      ...(members === 'features' ? { type: { type: 'string', enum: ['FeatureCollection'] } } : {}),
      numberMatched: { type: 'integer', minimum: 0 },
      numberReturned: { type: 'integer', minimum: 0 },
      ...extra.properties,
      [members]: { type: 'array', items },
      links: LINKS,
    },
  };
}
