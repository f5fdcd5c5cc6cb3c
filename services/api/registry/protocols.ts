/**
 * The protocols Cairn serves, in one list that the app (routers and error renderers), the
 * OpenAPI assembler and the conformance declaration all read, and the functions that assemble
 * what each needs from it. A protocol is added by writing its module
 * (protocols/<name>/index.ts, the contract in protocols/protocol.ts) and naming it here, in
 * PROTOCOLS and in MOUNT_ORDER; see docs/extending.md.
 */
import { ADMIN_PROTOCOL } from '../protocols/admin/index.js';
import { CSW_PROTOCOL } from '../protocols/csw/index.js';
import { OAI_PROTOCOL } from '../protocols/oai/index.js';
import { OPENSEARCH_PROTOCOL } from '../protocols/opensearch/index.js';
import {
  MOUNT_STAGES,
  type OpenApiTag,
  type Protocol,
  type ProtocolErrorRenderer,
  type ProtocolMount,
} from '../protocols/protocol.js';
import { RECORDS_PROTOCOL } from '../protocols/records/index.js';
import { STAC_PROTOCOL } from '../protocols/stac/index.js';
import { WEB_PROTOCOL } from '../protocols/web/index.js';

/**
 * The protocol modules in document order: the OpenAPI tags, paths and components and the
 * conformance classes are listed in this order.
 */
export const PROTOCOLS: readonly Protocol[] = Object.freeze([
  RECORDS_PROTOCOL,
  STAC_PROTOCOL,
  CSW_PROTOCOL,
  OPENSEARCH_PROTOCOL,
  OAI_PROTOCOL,
  ADMIN_PROTOCOL,
  WEB_PROTOCOL,
]);

/**
 * The order in which the protocols' routers are mounted within one stage (MOUNT_STAGES), by
 * protocol name. CSW and OpenSearch have mount paths of their own. STAC comes before Records
 * on the same path: the STAC router answers requests the Records router would take otherwise
 * (`f=stac` on the catalogue collection, which Records refuses as an unknown format).
 */
export const MOUNT_ORDER: readonly string[] = Object.freeze([
  'csw',
  'opensearch',
  'oai',
  'stac',
  'records',
  'admin',
  'web',
]);

/** A router of a protocol, with the protocol's name. */
export interface NamedMount extends ProtocolMount {
  protocol: string;
}

/**
 * The routers of `protocols` in the order the app mounts them: by stage (MOUNT_STAGES), then
 * by protocol (`order`), then as each protocol lists them. Throws when a protocol is missing
 * from `order`, so a new protocol cannot be mounted at an unstated place.
 */
export function orderMounts(
  protocols: readonly Protocol[] = PROTOCOLS,
  order: readonly string[] = MOUNT_ORDER,
): NamedMount[] {
  for (const { name } of protocols) {
    if (!order.includes(name)) throw new Error(`Protocol ${name} has no place in MOUNT_ORDER`);
  }
  const byProtocol = [...protocols].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  return MOUNT_STAGES.flatMap((stage) =>
    byProtocol.flatMap((protocol) =>
      protocol.mounts
        .filter((mount) => mount.stage === stage)
        .map((mount) => ({ ...mount, protocol: protocol.name })),
    ),
  );
}

/** The conformance classes of `protocols`, each once, in document order. */
export function assembleConformance(protocols: readonly Protocol[] = PROTOCOLS): string[] {
  return [...new Set(protocols.flatMap((protocol) => protocol.conformance))];
}

/**
 * The OpenAPI tags of `protocols`, each once, in document order. Throws when two protocols
 * give one tag different descriptions.
 */
export function assembleTags(protocols: readonly Protocol[] = PROTOCOLS): OpenApiTag[] {
  const tags = new Map<string, OpenApiTag>();
  for (const tag of protocols.flatMap((protocol) => protocol.openapi.tags)) {
    const known = tags.get(tag.name);
    if (known === undefined) tags.set(tag.name, { ...tag });
    else if (known.description !== tag.description)
      throw new Error(`OpenAPI tag "${tag.name}" has two descriptions`);
  }
  return [...tags.values()];
}

/** The error renderers of the protocols that have an error format of their own. */
export function errorRenderers(
  protocols: readonly Protocol[] = PROTOCOLS,
): ProtocolErrorRenderer[] {
  return protocols.flatMap((protocol) => (protocol.errors ? [protocol.errors] : []));
}

/** The conformance classes of the whole API, as /conformance and the landing page declare them. */
export const CONFORMANCE_CLASSES: readonly string[] = Object.freeze(assembleConformance());
