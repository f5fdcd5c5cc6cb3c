/**
 * Fuzzing of CSW request parsing (services/api/protocols/csw): KVP requests built from the
 * parameters CSW 2.0.2/3.0 and its OpenSearch mode know, with corrupted values and names in any
 * case; and XML requests of every operation in both versions (with FES 1.1/2.0 and CQL_TEXT
 * constraints) mutated structurally. Every input must parse or fail with a typed error that
 * becomes an OWS exception with a 4xx/501 status — never an internal error.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { CairnError } from '../../../shared/errors/index.js';
import { parseXml, XmlParseError } from '../../../shared/xml/index.js';
import { toOwsException } from '../../../services/api/protocols/csw/csw-errors.js';
import { parseCswKvp, readKvp } from '../../../services/api/protocols/csw/parse.js';
import { parseCswXml } from '../../../services/api/protocols/csw/parse-post.js';
import { describeRun, fuzzParameters, Tally } from '../../support/fuzz-settings.js';
import { cswKvpQuery, cswXmlRequest } from '../../support/fuzz-requests.js';

const RUNS = { kvp: 3_000, xml: 2_000 };
const CONTEXT = { defaultLimit: 10, maxLimit: 50, maxBytes: 1_000_000 };

/** Runs one parse; a typed error must map to a client-error OWS exception. */
function classify(parse: () => { operation: string }, tally: Tally): void {
  try {
    tally.add(`${parse().operation}`);
  } catch (error) {
    if (!(error instanceof CairnError)) throw error;
    const exception = toOwsException(error);
    if (exception.status >= 500 && exception.status !== 501)
      throw new Error(
        `status ${exception.status} (${exception.exceptionCode}) for a bad request: ${error.message}`,
        { cause: error },
      );
    tally.add(error instanceof XmlParseError ? 'XmlParseError' : exception.exceptionCode);
  }
}

describe('CSW request parsing under fuzzing', function () {
  this.timeout(120_000);

  it('KVP requests (GET and form POST) → a request or an OWS client error', () => {
    const tally = new Tally();
    fc.assert(
      fc.property(cswKvpQuery, (pairs) => {
        const query: Record<string, string[]> = {};
        for (const [name, value] of pairs) (query[name] ??= []).push(value);
        classify(() => parseCswKvp(readKvp(query), CONTEXT), tally);
      }),
      fuzzParameters(RUNS.kvp),
    );
    console.log(describeRun('CSW KVP', tally.total, tally.counts));
    expect(tally.counts.get('GetRecords') ?? 0).to.be.greaterThan(0);
  });

  it('XML requests (both versions, every operation) → a request or an OWS client error', () => {
    const tally = new Tally();
    fc.assert(
      fc.property(cswXmlRequest(), (body) => {
        classify(() => parseCswXml(parseXml(body, { maxBytes: CONTEXT.maxBytes }), CONTEXT), tally);
      }),
      fuzzParameters(RUNS.xml),
    );
    console.log(describeRun('CSW XML', tally.total, tally.counts));
    expect(tally.counts.get('GetRecords') ?? 0).to.be.greaterThan(0);
  });
});
