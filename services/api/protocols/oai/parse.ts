/**
 * Reads an OAI-PMH request (the query string of a GET, the form of a POST) into an OaiRequest:
 * the verb, its arguments checked against what the verb takes, and the harvesting window from
 * `from`/`until`. Every refusal is an OaiError with the protocol's code. Pure.
 */
import {
  OAI_VERBS,
  OaiError,
  VERB_ARGUMENTS,
  type OaiRequest,
  type OaiVerb,
  type OaiWindow,
} from './model.js';

/** The request's arguments as Express reads them (a repeated argument is an array). */
export type OaiArguments = Record<string, unknown>;

/** The metadataPrefix syntax (OAI-PMH.xsd metadataPrefixType). */
const METADATA_PREFIX = /^[A-Za-z0-9\-_.!~*'()]+$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const SECONDS = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** A datestamp argument as a time and its granularity; badArgument when it is not one. */
export function parseDatestamp(
  name: string,
  value: string,
): { time: number; granularity: 'day' | 'seconds' } {
  const day = DAY.exec(value);
  const seconds = SECONDS.exec(value);
  const parts = (day ?? seconds)?.slice(1).map(Number);
  if (parts === undefined)
    throw new OaiError(
      'badArgument',
      `${name} must be a UTC date (YYYY-MM-DD) or time (YYYY-MM-DDThh:mm:ssZ)`,
    );
  const [year = 0, month = 1, date = 1, hours = 0, minutes = 0, secs = 0] = parts;
  const time = Date.UTC(year, month - 1, date, hours, minutes, secs);
  const back = new Date(time);
  if (
    back.getUTCFullYear() !== year ||
    back.getUTCMonth() !== month - 1 ||
    back.getUTCDate() !== date ||
    hours > 23 ||
    minutes > 59 ||
    secs > 59
  )
    throw new OaiError('badArgument', `${name} is not a valid date`);
  return { time, granularity: day ? 'day' : 'seconds' };
}

/**
 * The window of change times `from` and `until` select, both inclusive at their granularity:
 * `until` of a day takes the whole day, `until` of a second the whole second.
 */
export function parseWindow(from: string | undefined, until: string | undefined): OaiWindow {
  const start = from === undefined ? undefined : parseDatestamp('from', from);
  const end = until === undefined ? undefined : parseDatestamp('until', until);
  if (start && end && start.granularity !== end.granularity)
    throw new OaiError('badArgument', 'from and until must have the same granularity');
  if (start && end && start.time > end.time)
    throw new OaiError('badArgument', 'from must not be later than until');
  const window: OaiWindow = {};
  if (start) window.from = new Date(start.time).toISOString();
  if (end) {
    const step = end.granularity === 'day' ? 86_400_000 : 1000;
    window.before = new Date(end.time + step).toISOString();
  }
  return window;
}

/** The arguments as single strings; badVerb / badArgument for repeated or non-text values. */
function singleValues(args: OaiArguments): Map<string, string> {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(args)) {
    if (typeof value !== 'string') {
      throw new OaiError(
        name === 'verb' ? 'badVerb' : 'badArgument',
        `${name} is given more than once`,
      );
    }
    values.set(name, value);
  }
  return values;
}

/** Parses a request's arguments. */
export function parseOaiRequest(args: OaiArguments): OaiRequest {
  const values = singleValues(args);
  const verb = values.get('verb');
  if (verb === undefined) throw new OaiError('badVerb', 'The verb argument is missing');
  if (!(OAI_VERBS as readonly string[]).includes(verb))
    throw new OaiError('badVerb', `${verb} is not an OAI-PMH verb`);
  const { required, optional } = VERB_ARGUMENTS[verb as OaiVerb];
  values.delete('verb');
  for (const name of values.keys()) {
    if (!required.includes(name) && !optional.includes(name))
      throw new OaiError('badArgument', `${verb} takes no argument ${name}`);
  }
  const token = values.get('resumptionToken');
  if (token !== undefined) {
    if (values.size > 1)
      throw new OaiError('badArgument', 'resumptionToken is an exclusive argument');
  } else {
    for (const name of required) {
      if (!values.has(name)) throw new OaiError('badArgument', `${verb} needs ${name}`);
    }
  }
  const prefix = values.get('metadataPrefix');
  if (prefix !== undefined && !METADATA_PREFIX.test(prefix))
    throw new OaiError('badArgument', 'metadataPrefix has characters a prefix cannot have');
  const get = (name: string): string | undefined => values.get(name);
  switch (verb as OaiVerb) {
    case 'Identify':
      return { verb: 'Identify' };
    case 'ListMetadataFormats': {
      const identifier = get('identifier');
      return identifier === undefined
        ? { verb: 'ListMetadataFormats' }
        : { verb: 'ListMetadataFormats', identifier };
    }
    case 'ListSets':
      if (token !== undefined)
        throw new OaiError('badResumptionToken', 'ListSets answers in one response');
      return { verb: 'ListSets' };
    case 'GetRecord':
      return {
        verb: 'GetRecord',
        identifier: get('identifier') ?? '',
        metadataPrefix: get('metadataPrefix') ?? '',
      };
    case 'ListIdentifiers':
    case 'ListRecords': {
      const request: OaiRequest = { verb: verb as 'ListIdentifiers' | 'ListRecords' };
      for (const name of ['metadataPrefix', 'from', 'until', 'set', 'resumptionToken'] as const) {
        const value = get(name);
        if (value !== undefined) request[name] = value;
      }
      // Checked here, so that a bad date is badArgument before anything is read.
      parseWindow(request.from, request.until);
      return request;
    }
  }
}

/** The record id of an oai-identifier of this repository, or undefined. */
export function recordIdOf(identifier: string, repositoryIdentifier: string): string | undefined {
  const prefix = `oai:${repositoryIdentifier}:`;
  if (!identifier.startsWith(prefix)) return undefined;
  const id = identifier.slice(prefix.length);
  return id === '' ? undefined : id;
}

/** The oai-identifier of a record. */
export function oaiIdentifierOf(id: string, repositoryIdentifier: string): string {
  return `oai:${repositoryIdentifier}:${id}`;
}
