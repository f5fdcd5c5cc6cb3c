/**
 * The folders of services/api depend only downward: no import cycle between protocol folders,
 * and the shared layers (common, commands) import no protocol, page or middleware. The checker
 * is shown to fail on a cycle added to the real graph.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { findCycles, readLayerGraph, type LayerGraph } from '../support/api-layers.js';
import { REPO_ROOT } from '../support/fixtures.js';

const isProtocol = (layer: string): boolean => layer.startsWith('protocols/');

describe('services/api layers', () => {
  const graph = readLayerGraph(join(REPO_ROOT, 'services', 'api'));

  /** The graph with one more import, for showing that the checks would fail. */
  function withImport(from: string, to: string): LayerGraph {
    const copy: LayerGraph = new Map([...graph].map(([layer, edges]) => [layer, new Set(edges)]));
    copy.get(from)!.add(to);
    return copy;
  }

  it('reads every protocol folder and the shared layers', () => {
    for (const layer of ['protocols/records', 'protocols/stac', 'protocols/csw', 'common'])
      expect(graph.has(layer), layer).to.equal(true);
    expect(graph.get('protocols/records')).to.include('common');
    expect(graph.get('protocols/csw')).to.include('commands');
  });

  it('has no import cycle between protocol folders', () => {
    expect(findCycles(graph, isProtocol)).to.deep.equal([]);
  });

  it('would fail on a new cycle, naming it', () => {
    expect(findCycles(withImport('protocols/stac', 'protocols/records'), isProtocol)).to.deep.equal(
      ['protocols/records → protocols/stac → protocols/records'],
    );
    expect(
      findCycles(withImport('protocols/opensearch', 'protocols/csw'), isProtocol),
    ).to.deep.equal(['protocols/csw → protocols/opensearch → protocols/csw']);
  });

  it('keeps common and commands below every protocol, page and middleware', () => {
    const below = (layer: string): string[] =>
      [...(graph.get(layer) ?? [])].filter((to) => to !== 'common' && to !== 'commands');
    expect(below('common')).to.deep.equal([]);
    expect(below('commands')).to.deep.equal([]);
    expect([...(graph.get('common') ?? [])]).to.not.include('commands');
  });

  it('has no cycle among all the layers', () => {
    const all = (): boolean => true;
    expect(findCycles(graph, all)).to.deep.equal([]);
    expect(findCycles(withImport('html', 'protocols/records'), all)).to.deep.equal([
      'html → protocols/records → html',
    ]);
    expect(findCycles(withImport('protocols/records', 'openapi'), all)).to.deep.equal([
      'openapi → protocols/records → openapi',
    ]);
  });
});
