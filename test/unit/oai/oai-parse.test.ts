import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { OaiError } from '../../../services/api/protocols/oai/model.js';
import {
  oaiIdentifierOf,
  parseOaiRequest,
  parseWindow,
  recordIdOf,
} from '../../../services/api/protocols/oai/parse.js';
import {
  decodeSetValue,
  encodeSetValue,
  parseSetSpec,
  recordSetSpecs,
  setSpecOf,
} from '../../../services/api/protocols/oai/sets.js';
import {
  decodeToken,
  encodeToken,
  type ListingState,
} from '../../../services/api/protocols/oai/token.js';
import { datestamp } from '../../../services/api/protocols/oai/present.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).to.be.instanceOf(OaiError);
    return (error as OaiError).code;
  }
}

describe('OAI-PMH request parsing', () => {
  it('reads each verb with its arguments', () => {
    expect(parseOaiRequest({ verb: 'Identify' })).to.deep.equal({ verb: 'Identify' });
    expect(
      parseOaiRequest({
        verb: 'ListRecords',
        metadataPrefix: 'oai_dc',
        from: '2024-01-01',
        set: 'type',
      }),
    ).to.deep.equal({
      verb: 'ListRecords',
      metadataPrefix: 'oai_dc',
      from: '2024-01-01',
      set: 'type',
    });
    expect(parseOaiRequest({ verb: 'ListIdentifiers', resumptionToken: 't' })).to.deep.equal({
      verb: 'ListIdentifiers',
      resumptionToken: 't',
    });
    expect(
      parseOaiRequest({ verb: 'GetRecord', identifier: 'oai:a.b:1', metadataPrefix: 'oai_dc' }),
    ).to.deep.equal({ verb: 'GetRecord', identifier: 'oai:a.b:1', metadataPrefix: 'oai_dc' });
  });

  it('refuses what the protocol refuses, with its code', () => {
    expect(codeOf(() => parseOaiRequest({}))).to.equal('badVerb');
    expect(codeOf(() => parseOaiRequest({ verb: 'identify' }))).to.equal('badVerb');
    expect(codeOf(() => parseOaiRequest({ verb: ['Identify', 'Identify'] }))).to.equal('badVerb');
    expect(codeOf(() => parseOaiRequest({ verb: 'Identify', set: 'x' }))).to.equal('badArgument');
    expect(codeOf(() => parseOaiRequest({ verb: 'GetRecord', identifier: 'x' }))).to.equal(
      'badArgument',
    );
    expect(
      codeOf(() => parseOaiRequest({ verb: 'ListRecords', metadataPrefix: ['a', 'b'] })),
    ).to.equal('badArgument');
    expect(
      codeOf(() =>
        parseOaiRequest({ verb: 'ListRecords', resumptionToken: 't', metadataPrefix: 'oai_dc' }),
      ),
    ).to.equal('badArgument');
    expect(codeOf(() => parseOaiRequest({ verb: 'ListSets', resumptionToken: 't' }))).to.equal(
      'badResumptionToken',
    );
  });

  it('turns from and until into an inclusive window at their granularity', () => {
    expect(parseWindow('2024-01-01', '2024-01-31')).to.deep.equal({
      from: '2024-01-01T00:00:00.000Z',
      before: '2024-02-01T00:00:00.000Z',
    });
    expect(parseWindow(undefined, '2024-01-31T10:00:00Z')).to.deep.equal({
      before: '2024-01-31T10:00:01.000Z',
    });
    expect(parseWindow('2024-01-31T10:00:00Z', '2024-01-31T10:00:00Z')).to.deep.equal({
      from: '2024-01-31T10:00:00.000Z',
      before: '2024-01-31T10:00:01.000Z',
    });
    for (const [from, until] of [
      ['2024-02-30', undefined],
      ['2024-01-01T24:00:00Z', undefined],
      ['2024-01-01T10:00:00+01:00', undefined],
      ['2024-01-02', '2024-01-01'],
      ['2024-01-01', '2024-01-02T00:00:00Z'],
    ] as const)
      expect(
        codeOf(() => parseWindow(from, until)),
        `${from} ${until}`,
      ).to.equal('badArgument');
  });

  it('reads and writes oai-identifiers of its repository only', () => {
    expect(oaiIdentifierOf('a:b', 'cat.example.org')).to.equal('oai:cat.example.org:a:b');
    expect(recordIdOf('oai:cat.example.org:a:b', 'cat.example.org')).to.equal('a:b');
    expect(recordIdOf('oai:other.org:a', 'cat.example.org')).to.equal(undefined);
    expect(recordIdOf('oai:cat.example.org:', 'cat.example.org')).to.equal(undefined);
  });

  it('writes datestamps in UTC at seconds granularity', () => {
    expect(datestamp('2024-05-06T07:08:09.999Z')).to.equal('2024-05-06T07:08:09Z');
  });
});

describe('OAI-PMH sets', () => {
  it('encodes any value as a setSpec segment and reads it back', () => {
    for (const value of ['dataset', 'urn:x-cairn:collection/1', 'Gewässer', '~tilde', 'a b']) {
      const segment = encodeSetValue(value);
      expect(segment).to.match(/^[A-Za-z0-9\-_.!~*'()]+$/);
      expect(decodeSetValue(segment)).to.equal(value);
      expect(parseSetSpec(setSpecOf({ field: 'parentId', value }))).to.deep.equal({
        field: 'parentId',
        value,
      });
    }
    expect(encodeSetValue('a:b')).to.equal('a~3Ab');
  });

  it('knows only its own sets', () => {
    expect(parseSetSpec('type')).to.deep.equal({ field: 'type' });
    expect(parseSetSpec('collection')).to.deep.equal({ field: 'parentId' });
    expect(parseSetSpec('other')).to.equal(undefined);
    expect(parseSetSpec('type:a~zz')).to.equal(undefined);
    expect(parseSetSpec('type:~61')).to.equal(undefined);
    expect(recordSetSpecs('dataset', null)).to.deep.equal(['type', 'type:dataset']);
    expect(recordSetSpecs(null, 'c1')).to.deep.equal(['collection', 'collection:c1']);
  });
});

describe('OAI-PMH resumption tokens', () => {
  const key = Buffer.alloc(32, 7);
  const state: ListingState = {
    verb: 'ListRecords',
    metadataPrefix: 'oai_dc',
    from: '2024-01-01T00:00:00.000Z',
    set: { field: 'type', value: 'dataset' },
    after: { changed: '2024-02-01T00:00:00.000Z', id: 'r1' },
    cursor: 100,
    completeListSize: 250,
    expires: 2_000_000_000_000,
  };

  it('carries the listing state, signed', () => {
    const token = encodeToken(state, key);
    expect(decodeToken(token, 'ListRecords', key, 0)).to.deep.equal(state);
  });

  it('refuses a token that is altered, signed with another key, expired or for another verb', () => {
    const token = encodeToken(state, key);
    const [payload, signature] = token.split('.') as [string, string];
    const altered = Buffer.from(JSON.stringify({ ...state, cursor: 0 })).toString('base64url');
    expect(codeOf(() => decodeToken(`${altered}.${signature}`, 'ListRecords', key, 0))).to.equal(
      'badResumptionToken',
    );
    expect(codeOf(() => decodeToken(`${payload}.x`, 'ListRecords', key, 0))).to.equal(
      'badResumptionToken',
    );
    expect(codeOf(() => decodeToken(token, 'ListRecords', Buffer.alloc(32, 8), 0))).to.equal(
      'badResumptionToken',
    );
    expect(codeOf(() => decodeToken(token, 'ListRecords', key, state.expires))).to.equal(
      'badResumptionToken',
    );
    expect(codeOf(() => decodeToken(token, 'ListIdentifiers', key, 0))).to.equal(
      'badResumptionToken',
    );
    expect(codeOf(() => decodeToken('no-dot', 'ListRecords', key, 0))).to.equal(
      'badResumptionToken',
    );
    const wrongShape = Buffer.from(JSON.stringify({ verb: 'ListRecords' })).toString('base64url');
    const signed = `${wrongShape}.${createHmac('sha256', key).update(wrongShape).digest('base64url')}`;
    expect(codeOf(() => decodeToken(signed, 'ListRecords', key, 0))).to.equal('badResumptionToken');
  });
});
