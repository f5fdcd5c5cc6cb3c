/**
 * The contract every protocol module (`protocols/<name>/index.ts`) fulfils: where its routers
 * go in the app's middleware chain, its part of the OpenAPI document, the conformance classes
 * it adds to /conformance and, when it has an error format of its own, its error renderer.
 * The app (app.ts), the OpenAPI assembler (openapi/document.ts) and the conformance
 * declaration all read the one list of these (registry/protocols.ts). Types only.
 */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { Config } from '../../../shared/config/index.js';
import type { IngestLog } from '../../../shared/ingest/ingest-log.js';
import type { Logger } from '../../../shared/logging/index.js';
import type { JobQueues } from '../../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../../shared/search/backend.js';
import type { CatalogueGeneration } from '../../../shared/search/catalogue-generation.js';
import type { HarvestContext } from '../commands/harvest.js';
import type { KnownQueryables } from '../common/known-queryables.js';
import type { DocumentPurpose, PageLimits, Parameter, Paths, Schema } from '../common/openapi.js';
import type { AuthMiddleware } from '../middleware/auth.js';

/** What a protocol's routers are built from: the app's dependencies, shared by every protocol. */
export interface ProtocolContext {
  config: Readonly<Config>;
  /** The backend behind the query cost limits (and the metrics, when enabled). */
  backend: SearchBackend;
  logger: Logger;
  auth: AuthMiddleware;
  /** The job queues (scaled mode), opened on first use; undefined without REDIS_URL. */
  queue: () => JobQueues | undefined;
  /** The ingest log, opened on first use. */
  ingestLog: () => IngestLog;
  /** The harvest context the harvest sources and CSW Harvest share. */
  harvest: HarvestContext;
  /** The conformance classes of the whole API (every protocol's, each once). */
  conformance: readonly string[];
  /** The served OpenAPI document for a public base URL. */
  openApiDocument: (publicBaseUrl: string) => unknown;
  /** The properties filters may name beyond the core queryables, learned from the records. */
  queryables: KnownQueryables;
  /**
   * The catalogue generation every write advances (shared/search/catalogue-generation.ts):
   * what is remembered for it is never older than an acknowledged write. Undefined: none.
   */
  generation?: CatalogueGeneration | undefined;
}

/**
 * The points of the app's middleware chain where protocol routers go, in chain order:
 *
 * - `writes`: before the JSON body parser (the routers read their own bodies after checking
 *   the token), so before request validation;
 * - `admin`: after the JSON body parser, before request validation;
 * - `open`: after request validation, before the read-access check (health probes);
 * - `reads`: after the read-access check (AUTH_READS_REQUIRE_TOKEN).
 */
export const MOUNT_STAGES = ['writes', 'admin', 'open', 'reads'] as const;

/** One of MOUNT_STAGES. */
export type MountStage = (typeof MOUNT_STAGES)[number];

/** One router of a protocol and where it goes. */
export interface ProtocolMount {
  stage: MountStage;
  /** The path it is mounted at (`/catalogue`, `/catalogue/csw`, `/` …). */
  path: string;
  /**
   * The requests it sees; the others skip it without a path match (searches should walk only
   * the routers that can answer them). Every request when absent.
   */
  when?: (request: Request) => boolean;
  /** Builds the router (or handler). */
  create: (context: ProtocolContext) => RequestHandler;
}

/** A tag of the OpenAPI document. */
export interface OpenApiTag {
  name: string;
  description: string;
}

/** What a protocol's part of the OpenAPI document is built from. */
export interface OpenApiPartOptions {
  /** The served document, or the one requests are validated against. */
  purpose: DocumentPurpose;
  /** Public URL of the deployment root (where paths outside /catalogue live). */
  rootUrl: string;
  /** Page sizes: the configured LIMIT_DEFAULT and LIMIT_MAX. */
  limits: PageLimits;
}

/** A protocol's part of the OpenAPI document. */
export interface ProtocolOpenApi {
  /**
   * The tags its operations use, in document order; a tag another protocol uses too is given
   * with the same description (the document lists it once).
   */
  tags: readonly OpenApiTag[];
  /**
   * Whether requests are validated against its paths: only then are they in the validation
   * document (a protocol whose parser reads its requests itself says false).
   */
  validated: boolean;
  /** Its paths, relative to the server URL (…/catalogue) unless they name their servers. */
  paths: (options: OpenApiPartOptions) => Paths;
  /** Its schemas (components/schemas). */
  schemas?: () => Record<string, Schema>;
  /** Its parameters (components/parameters). */
  parameters?: (options: OpenApiPartOptions) => Record<string, Parameter>;
}

/** An error renderer of a protocol with an error format of its own. */
export interface ProtocolErrorRenderer {
  /** The paths whose errors it renders (before the HTML and JSON renderers). */
  paths: readonly string[];
  render: ErrorRequestHandler;
}

/** A protocol module: everything the app and the OpenAPI document need to know of it. */
export interface Protocol {
  /** Its folder under services/api/protocols. */
  name: string;
  /** Its routers, in the order they are mounted within a stage. */
  mounts: readonly ProtocolMount[];
  openapi: ProtocolOpenApi;
  /** The conformance classes it passes, as /conformance and the landing page declare them. */
  conformance: readonly string[];
  /** Its error renderer, when its errors are not the `{code, description}` JSON or HTML. */
  errors?: ProtocolErrorRenderer;
}
