/**
 * The CSW output schemas as a table: each module of this folder gives the outputSchema URIs that
 * name its schema and its record writers, and the presenter looks the request's outputSchema up
 * here. Which schemas each version offers (and its default) is OUTPUT_SCHEMAS in csw-model.ts,
 * which the parsers check requests against; every offered URI has its module here (tested).
 */
import { ATOM_ENTRY } from './atom.js';
import { DCAT_AP } from './dcat.js';
import { DUBLIN_CORE } from './dublin-core.js';
import { ISO_19139 } from './iso19139.js';
import type { CswOutputSchema } from './output-schema.js';

export type { CswOutputSchema, RecordPlacement } from './output-schema.js';

/** Every output schema Cairn writes. */
export const CSW_OUTPUT_SCHEMAS: readonly CswOutputSchema[] = Object.freeze([
  DUBLIN_CORE,
  ISO_19139,
  ATOM_ENTRY,
  DCAT_AP,
]);

/** The output schema of each outputSchema URI. */
const BY_NAMESPACE: ReadonlyMap<string, CswOutputSchema> = new Map(
  CSW_OUTPUT_SCHEMAS.flatMap((schema) => schema.namespaces.map((ns) => [ns, schema] as const)),
);

/**
 * The output schema an outputSchema URI asks for. The parsers admit only the URIs a version
 * offers (OUTPUT_SCHEMAS), so any other is a programming error.
 */
export function findOutputSchema(namespace: string): CswOutputSchema {
  const schema = BY_NAMESPACE.get(namespace);
  if (schema === undefined) throw new Error(`No CSW output schema module for "${namespace}"`);
  return schema;
}
