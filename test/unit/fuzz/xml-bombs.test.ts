/**
 * XML bombs against every XML parser entry point (the safe parser itself, ingest of
 * ISO/Dublin Core documents, FES filters and FES SortBy): each must be refused with a typed
 * error naming the problem, without expanding anything, and without a memory blow-up.
 */
import { expect } from 'chai';
import { CairnError } from '../../../shared/errors/index.js';
import { parseFesFilter, parseFesSortBy } from '../../../shared/query/fes/index.js';
import { parseDocuments } from '../../../shared/records/formats/index.js';
import { parseXml, XmlParseError } from '../../../shared/xml/index.js';
import { xmlBombs } from '../../support/fuzz-bombs.js';
import { defined } from '../../support/defined.js';

/** Heap growth allowed while refusing one bomb (the refused flood builds at most ~30 MB). */
const MAX_HEAP_GROWTH = 100 * 1024 * 1024;

const DC_RECORD =
  '<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier>bomb</dc:identifier><dc:title>t</dc:title></csw:Record>';
const FES_FILTER =
  '<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:PropertyIsEqualTo><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>x</fes:Literal></fes:PropertyIsEqualTo></fes:Filter>';
const FES_SORT_BY =
  '<fes:SortBy xmlns:fes="http://www.opengis.net/fes/2.0"><fes:SortProperty><fes:ValueReference>dc:title</fes:ValueReference></fes:SortProperty></fes:SortBy>';

/** Entry points: each returns the refusal's message, or throws what it threw. */
const ENTRY_POINTS: { name: string; root: string; refuse: (xml: string) => string }[] = [
  {
    name: 'parseXml',
    root: DC_RECORD,
    refuse: (xml) => {
      parseXml(xml);
      throw new Error('parsed');
    },
  },
  {
    name: 'ingest (parseDocuments)',
    root: DC_RECORD,
    refuse: (xml) => {
      const parsed = parseDocuments(xml, { maxBytes: 10 * 1024 * 1024 });
      if (parsed.records.length > 0) throw new Error('parsed');
      expect(parsed.failures).to.have.length(1);
      return defined(parsed.failures[0], 'the failure').reason;
    },
  },
  {
    name: 'FES filter',
    root: FES_FILTER,
    refuse: (xml) => {
      parseFesFilter(xml);
      throw new Error('parsed');
    },
  },
  {
    name: 'FES SortBy',
    root: FES_SORT_BY,
    refuse: (xml) => {
      parseFesSortBy(xml);
      throw new Error('parsed');
    },
  },
];

/** The message of a typed refusal (an XmlParseError, or a protocol error caused by one). */
function refusal(action: () => string): string {
  try {
    return action();
  } catch (error) {
    if (!(error instanceof CairnError)) throw error;
    const cause = error instanceof XmlParseError ? error : error.cause;
    expect(cause, `${error.name}: ${error.message}`).to.be.instanceOf(XmlParseError);
    expect(error.status).to.equal(400);
    return error.message;
  }
}

describe('XML bombs at every XML entry point', function () {
  this.timeout(60_000);

  for (const entry of ENTRY_POINTS) {
    it(`${entry.name}: the unarmed document parses`, () => {
      expect(() => entry.refuse(entry.root)).to.throw('parsed');
    });
  }

  for (const bomb of xmlBombs()) {
    it(`refuses ${bomb.name} at every entry point, naming it`, () => {
      for (const entry of ENTRY_POINTS) {
        const document = bomb.build(entry.root);
        const heapBefore = process.memoryUsage().heapUsed;
        const message = refusal(() => entry.refuse(document));
        const growth = process.memoryUsage().heapUsed - heapBefore;
        expect(message, entry.name).to.match(bomb.names);
        expect(message, entry.name).not.to.include('lollol');
        expect(growth, `${entry.name}: heap growth`).to.be.below(MAX_HEAP_GROWTH);
      }
    });
  }
});
