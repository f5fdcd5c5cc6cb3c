/**
 * The CSW output schemas table (services/api/protocols/csw/output-schemas/): one module for
 * every outputSchema URI a version offers, and what each module declares.
 */
import { expect } from 'chai';
import { buildEmptyRecord } from '../../../shared/records/core-record.js';
import { createDocument, serialise } from '../../../shared/records/writers/xml/index.js';
import {
  CSW_NS,
  DCAT_OUTPUT_SCHEMA,
  OUTPUT_SCHEMAS,
} from '../../../services/api/protocols/csw/csw-model.js';
import {
  CSW_OUTPUT_SCHEMAS,
  findOutputSchema,
} from '../../../services/api/protocols/csw/output-schemas/index.js';

const RECORD = {
  ...buildEmptyRecord('r1', { format: 'geojson', mediaType: 'application/geo+json', content: '' }),
  title: 'A record',
};

describe('CSW output schemas', () => {
  it('has a module for every outputSchema each version offers, and none offered nowhere', () => {
    const offered = new Set(Object.values(OUTPUT_SCHEMAS).flat());
    for (const uri of offered) expect(() => findOutputSchema(uri), uri).to.not.throw();
    const named = CSW_OUTPUT_SCHEMAS.flatMap((schema) => schema.namespaces);
    expect(new Set(named).size, 'each URI names one module').to.equal(named.length);
    expect([...named].sort()).to.deep.equal([...offered].sort());
  });

  it('names csw:Record by both versions’ CSW namespaces, ISO 19139 and Atom by theirs', () => {
    expect(findOutputSchema(CSW_NS.csw202)).to.equal(findOutputSchema(CSW_NS.csw30));
    expect(findOutputSchema(CSW_NS.gmd).title).to.match(/ISO 19139/);
    expect(findOutputSchema(CSW_NS.atom).title).to.match(/Atom/);
    expect(() => findOutputSchema('http://example.org/other')).to.throw(/No CSW output schema/);
  });

  it('writes ISO 19139 whole, with gmd and gco declared on the response and documents of its own', () => {
    const iso = findOutputSchema(CSW_NS.gmd);
    expect(iso.reportedElementSet).to.equal('full');
    expect(iso.responseNamespaces).to.deep.equal({ gmd: CSW_NS.gmd, gco: CSW_NS.gco });
    expect(iso.writeDocument?.(RECORD)).to.match(/<gmd:MD_Metadata/);
    expect(findOutputSchema(DCAT_OUTPUT_SCHEMA).title).to.match(/DCAT-AP/);
    for (const uri of [CSW_NS.csw30, CSW_NS.atom]) {
      const schema = findOutputSchema(uri);
      expect(schema.reportedElementSet, uri).to.equal(undefined);
      expect(schema.responseNamespaces, uri).to.deep.equal({});
      expect(schema.writeDocument, uri).to.equal(undefined);
    }
  });

  it('appends records in the schema and presentation asked', () => {
    const write = (uri: string, standalone: boolean): string => {
      const document = createDocument();
      findOutputSchema(uri).appendRecord(document, RECORD, {
        version: '3.0.0',
        presentation: { kind: 'elementSet', elementSet: 'brief' },
        standalone,
        baseUrl: 'http://cairn.test',
      });
      return serialise(document, { prettyPrint: false });
    };
    expect(write(CSW_NS.csw30, true)).to.match(/<csw30:BriefRecord xmlns:csw30=/);
    expect(write(CSW_NS.gmd, true)).to.match(/<gmd:MD_Metadata/);
    expect(write(DCAT_OUTPUT_SCHEMA, false)).to.match(
      /^<\?xml[^>]*><rdf:RDF [^>]*><rdf:Description rdf:about="http:\/\/cairn\.test\/catalogue\/collections\/metadata:main\/items\/r1"><rdf:type rdf:resource="http:\/\/www\.w3\.org\/ns\/dcat#Dataset"\/>/,
    );
    expect(write(CSW_NS.atom, false)).to.match(
      /<entry [^>]*xmlns="http:\/\/www.w3.org\/2005\/Atom"/,
    );
    const chosen = createDocument();
    findOutputSchema(CSW_NS.csw202).appendRecord(chosen, RECORD, {
      version: '2.0.2',
      presentation: {
        kind: 'elementNames',
        names: [{ ns: CSW_NS.dc, local: 'title', written: 'dc:title' }],
      },
      standalone: false,
      baseUrl: 'http://cairn.test',
    });
    expect(serialise(chosen, { prettyPrint: false })).to.match(
      /<csw:Record[^>]*><dc:title[^>]*>A record<\/dc:title><\/csw:Record>/,
    );
  });
});
