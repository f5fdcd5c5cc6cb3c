/**
 * One root logger (winston, JSON lines); children carry a request or job id. Secrets are
 * redacted before anything is written: authorization headers, tokens, passwords, cookies.
 */
import winston from 'winston';

export type Logger = winston.Logger;

const SECRET_KEY =
  /authorization|token|password|secret|cookie|assertion|client_secret|apikey|api_key/i;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const JWT = /\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

/** Returns a copy of a log value with secret-looking keys and token-looking strings replaced. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string')
    return value.replace(BEARER, '$1 [REDACTED]').replace(JWT, '[REDACTED]');
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = SECRET_KEY.test(key) ? '[REDACTED]' : redactSecrets(item, depth + 1);
  }
  return copy;
}

const redact = winston.format((info) => {
  for (const key of Object.keys(info)) {
    info[key] = SECRET_KEY.test(key) ? '[REDACTED]' : redactSecrets(info[key]);
  }
  return info;
});

/** Creates the root logger writing JSON lines to stdout (silent when level is 'silent'). */
export function createLogger(level: string, service: string): Logger {
  return winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    defaultMeta: { service },
    format: winston.format.combine(redact(), winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
}
