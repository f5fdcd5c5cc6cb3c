/**
 * decodeXml: bytes → text in the encoding the document declares (BOM, charset, declaration,
 * UTF-8), refusing what is not valid in it instead of writing U+FFFD.
 */
import { expect } from 'chai';
import { charsetOf, decodeDocument, decodeXml, XmlParseError } from '../../../shared/xml/index.js';

const TITLE = 'Géologie – été';
const doc = (declaration: string, title = TITLE): string => `${declaration}<t>${title}</t>`;

function refusal(run: () => unknown): XmlParseError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(XmlParseError);
    expect((error as XmlParseError).reason).to.equal('encoding');
    return error as XmlParseError;
  }
  throw new Error('expected a refusal');
}

describe('decodeXml', () => {
  it('reads UTF-8 by default and keeps a UTF-8 declaration as written', () => {
    const text = doc('<?xml version="1.0" encoding="utf-8"?>');
    expect(decodeXml(Buffer.from(text))).to.equal(text);
    expect(decodeXml(Buffer.from(doc('')))).to.equal(doc(''));
  });

  it('honours an ISO-8859-1 or windows-1252 declaration and rewrites it to UTF-8', () => {
    const latin1 = Buffer.from(
      doc(`<?xml version='1.0' encoding='ISO-8859-1'?>`, 'Géologie été'),
      'latin1',
    );
    expect(decodeXml(latin1)).to.equal(
      doc(`<?xml version='1.0' encoding='UTF-8'?>`, 'Géologie été'),
    );
    const cp1252 = Buffer.concat([
      Buffer.from('<?xml version="1.0" encoding="windows-1252"?><t>G', 'latin1'),
      Buffer.from([0xe9, 0x96, 0x80]),
      Buffer.from('</t>'),
    ]);
    expect(decodeXml(cp1252)).to.equal('<?xml version="1.0" encoding="UTF-8"?><t>Gé–€</t>');
  });

  it('reads UTF-16 with a byte order mark, and UTF-16 without one from its first bytes', () => {
    const text = doc('<?xml version="1.0" encoding="UTF-16"?>');
    const expected = doc('<?xml version="1.0" encoding="UTF-8"?>');
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    expect(decodeXml(le)).to.equal(expected);
    const be = Buffer.from(text, 'utf16le').swap16();
    expect(decodeXml(Buffer.concat([Buffer.from([0xfe, 0xff]), be]))).to.equal(expected);
    expect(decodeXml(Buffer.from(text, 'utf16le'))).to.equal(expected);
  });

  it('lets the media type charset win over the declaration (RFC 7303)', () => {
    const bytes = Buffer.from(doc('<?xml version="1.0" encoding="UTF-8"?>', 'été'), 'latin1');
    expect(decodeXml(bytes, { charset: 'iso-8859-1' })).to.equal(
      doc('<?xml version="1.0" encoding="UTF-8"?>', 'été'),
    );
    expect(charsetOf('application/xml; charset="ISO-8859-1"')).to.equal('ISO-8859-1');
    expect(charsetOf('application/xml')).to.equal(undefined);
  });

  it('refuses bytes not valid in the encoding, and encodings Node cannot decode, by name', () => {
    const latin1 = Buffer.from(doc(''), 'latin1');
    expect(refusal(() => decodeXml(latin1)).message).to.match(/not valid utf-8/);
    expect(refusal(() => decodeXml(latin1, { charset: 'utf-8' })).message).to.match(/utf-8/);
    const ebcdic = Buffer.from(doc('<?xml version="1.0" encoding="EBCDIC-CP-US"?>'));
    expect(refusal(() => decodeXml(ebcdic)).message).to.match(/"EBCDIC-CP-US" is not supported/);
    expect(refusal(() => decodeXml(latin1, { charset: 'x-unknown' })).message).to.match(
      /"x-unknown"/,
    );
  });

  it('decodes JSON as UTF-8 and XML as declared (decodeDocument)', () => {
    expect(decodeDocument(Buffer.from('{"a":"é"}'))).to.equal('{"a":"é"}');
    const latin1 = Buffer.from(`  \n<?xml version="1.0" encoding="ISO-8859-1"?><t>é</t>`, 'latin1');
    expect(() => decodeDocument(latin1)).to.throw(XmlParseError);
    const declared = Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?><t>é</t>`, 'latin1');
    expect(decodeDocument(declared)).to.equal('<?xml version="1.0" encoding="UTF-8"?><t>é</t>');
  });
});
