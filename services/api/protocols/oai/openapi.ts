/**
 * The OAI-PMH part of the OpenAPI document: /oai, GET and POST. Its parser reads its requests
 * (the protocol answers a bad argument with its own error, HTTP 200), so the paths are in the
 * served document only; the parameter names and the verb enum are the parser's.
 */
import { stringParameter, textContent, type Paths } from '../../common/openapi.js';
import { OAI_VERBS, VERB_ARGUMENTS } from './model.js';

export const OAI_TAG = 'OAI-PMH';

/** Every argument any verb takes, once, in a stable order. */
export const OAI_ARGUMENT_NAMES: readonly string[] = [
  ...new Set(
    Object.values(VERB_ARGUMENTS).flatMap(({ required, optional }) => [...required, ...optional]),
  ),
];

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  identifier: 'An oai-identifier (`oai:<repository identifier>:<record id>`)',
  metadataPrefix: 'A metadata format (ListMetadataFormats lists them)',
  from: 'Lower bound on the datestamp (YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ), inclusive',
  until: 'Upper bound on the datestamp, inclusive, at the granularity of from',
  set: 'A setSpec (ListSets lists them)',
  resumptionToken: 'The token of the previous page (an exclusive argument)',
};

/** The /oai path. */
export function buildOaiPaths(): Paths {
  const responses = {
    '200': {
      description: 'An OAI-PMH response, or an OAI-PMH error (always HTTP 200)',
      content: textContent('text/xml'),
    },
  };
  const parameters = [
    stringParameter('verb', 'The OAI-PMH verb', { enum: [...OAI_VERBS] }),
    ...OAI_ARGUMENT_NAMES.map((name) => stringParameter(name, DESCRIPTIONS[name] ?? name)),
  ];
  return {
    '/oai': {
      get: {
        summary: 'OAI-PMH 2.0 data provider',
        tags: [OAI_TAG],
        parameters,
        responses,
      },
      post: {
        summary: 'OAI-PMH 2.0 data provider (arguments as a form)',
        tags: [OAI_TAG],
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                properties: Object.fromEntries(
                  ['verb', ...OAI_ARGUMENT_NAMES].map((name) => [name, { type: 'string' }]),
                ),
              },
            },
          },
        },
        responses,
      },
    },
  };
}
