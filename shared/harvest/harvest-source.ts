/**
 * Harvest sources: a remote catalogue (CSW, OGC API – Records, STAC API) or a single document
 * that Cairn copies records from, with how to reach it (auth) and how often (interval).
 * Definitions are validated once here, whether they come from the admin API, a CSW Harvest
 * request or the source store.
 */
import { z } from 'zod';
import { InvalidParameterError } from '../errors/index.js';
import type { SourceFormat } from '../records/core-record.js';

/** The protocols a source may speak; `document` is one metadata document fetched by URL. */
export const HARVEST_PROTOCOLS = ['csw', 'records', 'stac', 'document', 'oai-pmh'] as const;

const SOURCE_FORMATS = [
  'ogc-record',
  'geojson',
  'stac-item',
  'stac-collection',
  'iso19139',
  'iso19115-3',
  'dublin-core',
] as const satisfies readonly SourceFormat[];

/** How Cairn authenticates to a protected source (tokens come from the configured provider). */
const authSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('none') }).strict(),
  z
    .object({
      type: z.literal('client-credentials'),
      /** The minimal scopes to ask for; none means the client's default scopes only. */
      scope: z
        .array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/))
        .max(20)
        .optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('token-exchange'),
      /** The source's client id: the exchanged token carries it as its only audience. */
      audience: z.string().min(1).max(200),
    })
    .strict(),
]);
export type SourceAuth = z.infer<typeof authSchema>;

const httpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .refine((value) => !new URL(value).username && !new URL(value).password, {
    message: 'credentials in the URL are not allowed (use auth)',
  });

/** A source id: what the admin URLs and the ownership table use. */
export const SOURCE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const definitionSchema = z
  .object({
    id: z.string().regex(SOURCE_ID_PATTERN, 'letters, digits, ".", "_" and "-" (at most 100)'),
    title: z.string().max(500).optional(),
    protocol: z.enum(HARVEST_PROTOCOLS),
    /** CSW endpoint, Records items URL, STAC search URL, OAI-PMH base URL, or the document's URL. */
    url: httpUrl,
    /** CSW: protocol version. */
    version: z.enum(['2.0.2', '3.0.0']).optional(),
    /** CSW and OAI-PMH: ISO 19139 (`gmd`: metadataPrefix iso19139) or Dublin Core (`dc`: oai_dc) records. */
    outputSchema: z.enum(['gmd', 'dc']).optional(),
    /** CSW GetRecords and STAC search: GET (KVP / query string) or POST (XML / JSON body). */
    method: z.enum(['GET', 'POST']).optional(),
    /** STAC: restrict the search to these collections. */
    collections: z.array(z.string().min(1).max(200)).max(100).optional(),
    /** Document: the declared format (detected when absent). */
    format: z.enum(SOURCE_FORMATS).optional(),
    /** Records per page requested from the source. */
    pageSize: z.number().int().min(1).max(1000).optional(),
    /** Ask only for records modified since the last successful run (where the source can). */
    incremental: z.boolean().optional(),
    auth: authSchema.optional(),
    /** Run on a schedule, every this many minutes (scaled mode). */
    intervalMinutes: z
      .number()
      .int()
      .min(1)
      .max(60 * 24 * 366)
      .optional(),
  })
  .strict();

/** A source as registered: every optional setting may be absent (defaults apply at run time). */
export type HarvestSourceDefinition = z.infer<typeof definitionSchema>;

/** A source with every default filled in, as the adapters read it. */
export interface ResolvedSource extends HarvestSourceDefinition {
  version: '2.0.2' | '3.0.0';
  outputSchema: 'gmd' | 'dc';
  method: 'GET' | 'POST';
  pageSize: number;
  incremental: boolean;
  auth: SourceAuth;
}

/** Validates a source definition; a 400 naming every problem otherwise. */
export function parseHarvestSource(input: unknown): HarvestSourceDefinition {
  const parsed = definitionSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`,
  );
  const first = parsed.error.issues[0]?.path.join('.') || 'body';
  throw new InvalidParameterError(first, `Invalid harvest source: ${problems.join('; ')}`);
}

/** Fills in the defaults of a definition. */
export function resolveSource(definition: HarvestSourceDefinition): ResolvedSource {
  return {
    ...definition,
    version: definition.version ?? '2.0.2',
    outputSchema: definition.outputSchema ?? 'gmd',
    method: definition.method ?? 'GET',
    pageSize: definition.pageSize ?? 100,
    incremental: definition.incremental ?? true,
    auth: definition.auth ?? { type: 'none' },
  };
}
