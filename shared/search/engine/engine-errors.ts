/**
 * Turns engine failures into project errors at the backend boundary: an unreachable or
 * overloaded engine is a 503 with Retry-After, a query the engine refuses is a 400 with a
 * generic message, anything else an internal error. No engine message, node URL or stack
 * reaches a client; the classified EngineError is kept as the cause for the logs.
 */
import {
  CairnError,
  FilterError,
  InternalError,
  InvalidParameterError,
  ServiceUnavailableError,
} from '../../errors/index.js';
import { classifyClientError, type EngineName } from './engine-adapter.js';

/** The names the engines go by in messages to clients. */
export const ENGINE_TITLES: Record<EngineName, string> = {
  elasticsearch: 'Elasticsearch',
  opensearch: 'OpenSearch',
};

/** Seconds a client should wait before retrying when the engine is unavailable. */
export const RETRY_AFTER_SECONDS = 5;

/** The project error for a failure while reading (search, domain, extent, get). */
export function toReadError(error: unknown, hasFilter = false): CairnError {
  if (error instanceof CairnError) return error;
  const engineError = classifyClientError(error);
  switch (engineError.kind) {
    case 'unavailable':
      return new ServiceUnavailableError('The search engine is unavailable; try again shortly', {
        retryAfter: RETRY_AFTER_SECONDS,
        cause: engineError,
      });
    case 'rejected':
      return hasFilter
        ? new FilterError('The search engine could not evaluate this filter', {
            cause: engineError,
          })
        : new InvalidParameterError('query', 'The search engine could not evaluate this query', {
            cause: engineError,
          });
    default:
      return new InternalError('The search engine request failed', { cause: engineError });
  }
}

/** The project error for a failure while writing or administering indices. */
export function toWriteError(error: unknown): CairnError {
  if (error instanceof CairnError) return error;
  const engineError = classifyClientError(error);
  if (engineError.kind === 'unavailable') {
    return new ServiceUnavailableError('The search engine is unavailable; try again shortly', {
      retryAfter: RETRY_AFTER_SECONDS,
      cause: engineError,
    });
  }
  return new InternalError('The search engine refused an index operation', { cause: engineError });
}
