/**
 * The project's error catalogue. Handlers and leaf functions throw these; one middleware per
 * protocol renders them. `expose` says whether `message` may reach a client: anything not
 * exposed is rendered as a generic 500 (or 503) so driver messages never leak.
 */

export interface CairnErrorOptions {
  /** The request parameter or document location at fault, used as CSW `locator`. */
  locator?: string;
  /** Seconds a client should wait before retrying (503). */
  retryAfter?: number;
  cause?: unknown;
}

/** Base class: every error Cairn throws on purpose carries a code, a status and an expose flag. */
export class CairnError extends Error {
  readonly code: string;
  readonly status: number;
  readonly expose: boolean;
  readonly locator?: string | undefined;
  readonly retryAfter?: number | undefined;

  constructor(
    code: string,
    status: number,
    message: string,
    expose: boolean,
    options: CairnErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.expose = expose;
    this.locator = options.locator;
    this.retryAfter = options.retryAfter;
  }
}

/** A request parameter or body is malformed or out of range (400). */
export class InvalidParameterError extends CairnError {
  constructor(locator: string, message: string, options: CairnErrorOptions = {}) {
    super('INVALID_PARAMETER', 400, message, true, { ...options, locator });
  }
}

/**
 * `sortby` names a property that is neither a sortable core queryable nor a sortable property
 * learned from the records (400 INVALID_PARAMETER, naming it and the parameter).
 */
export class UnsortablePropertyError extends InvalidParameterError {
  constructor(
    locator: string,
    readonly property: string,
  ) {
    super(locator, `${locator}: "${property}" is not a sortable property`);
  }
}

/** A request names a parameter the endpoint does not know (400). */
export class UnknownParameterError extends CairnError {
  constructor(name: string) {
    super('UNKNOWN_PARAMETER', 400, `Unknown query parameter "${name}"`, true, { locator: name });
  }
}

/** A filter expression does not parse or does not type-check (400). */
export class FilterError extends CairnError {
  constructor(message: string, options: CairnErrorOptions = {}) {
    super('INVALID_FILTER', 400, message, true, { locator: 'filter', ...options });
  }
}

/**
 * A filter names a property that is neither a core queryable nor one the catalogue has seen on
 * a record written to it (400). It names the property; the queryables document lists the rest.
 */
export class UnknownQueryableError extends FilterError {
  constructor(readonly property: string) {
    super(
      `"${property}" is not a queryable of this catalogue (no core queryable, and no record written here has it); see …/queryables for the properties a filter may name`,
    );
  }
}

/**
 * A valid filter that the configured backend cannot answer exactly (400). It names the backend
 * and the operator, so a caller can tell "cannot prove this here" from a malformed filter, and a
 * backend able to refine candidates exactly may catch it.
 */
export class UnsupportedFilterError extends FilterError {
  constructor(
    readonly backend: string,
    readonly operator: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A query exceeds one of the configured bounds on what a query may cost (400): too deep, too
 * many operands, too long an array, too many geometry parts or vertices, too many words. The
 * message names the limit and its value.
 */
export class QueryLimitError extends CairnError {
  constructor(locator: string, message: string) {
    super('QUERY_LIMIT_EXCEEDED', 400, message, true, { locator });
  }
}

/**
 * A query ran longer than the configured time budget and was cancelled (503): the request is
 * valid, but this server will not spend more on it; a narrower query will succeed.
 */
export class QueryTimeoutError extends CairnError {
  constructor(budgetMs: number, options: CairnErrorOptions = {}) {
    super(
      'QUERY_TIMEOUT',
      503,
      `The query ran longer than its time budget of ${budgetMs} ms (QUERY_TIME_BUDGET_MS) and was cancelled; narrow it (fewer or simpler conditions, a smaller area or page)`,
      true,
      options,
    );
  }
}

/** A metadata document cannot be read as any supported format (400 / rejected in a batch). */
export class InvalidRecordError extends CairnError {
  constructor(message: string, options: CairnErrorOptions = {}) {
    super('INVALID_RECORD', 400, message, true, options);
  }
}

/** The requested resource does not exist (404). */
export class NotFoundError extends CairnError {
  constructor(message: string, options: CairnErrorOptions = {}) {
    super('NOT_FOUND', 404, message, true, options);
  }
}

/** The requested representation is not offered (400 for `f`, 406 for Accept). */
export class UnsupportedFormatError extends CairnError {
  constructor(message: string, status = 400, options: CairnErrorOptions = {}) {
    super('UNSUPPORTED_FORMAT', status, message, true, { locator: 'f', ...options });
  }
}

/** The request body exceeds a configured size limit (413). */
export class PayloadTooLargeError extends CairnError {
  constructor(message: string) {
    super('PAYLOAD_TOO_LARGE', 413, message, true);
  }
}

/** The request URL (path and query string) exceeds the configured limit (414). */
export class UriTooLongError extends CairnError {
  constructor(message: string) {
    super('URI_TOO_LONG', 414, message, true, { locator: 'url' });
  }
}

/** A dependency (search engine, queue, identity provider) is unavailable (503). */
export class ServiceUnavailableError extends CairnError {
  constructor(message: string, options: CairnErrorOptions = {}) {
    super('SERVICE_UNAVAILABLE', 503, message, true, { retryAfter: 5, ...options });
  }
}

/** Anything unexpected; its message is never shown to a client. */
export class InternalError extends CairnError {
  constructor(message: string, options: CairnErrorOptions = {}) {
    super('INTERNAL_ERROR', 500, message, false, options);
  }
}

/** Narrows an unknown thrown value to a CairnError, wrapping anything else as internal. */
export function toCairnError(error: unknown): CairnError {
  if (error instanceof CairnError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new InternalError(message, { cause: error });
}
