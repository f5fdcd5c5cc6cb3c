/**
 * The survivors refined searches keep for their later pages (shared/search/engine/refine-survivors.ts):
 * served only at the generation they were kept at, bounded by the ids held, least recently
 * used out first, and one generation held at a time.
 */
import { expect } from 'chai';
import { SurvivorStore } from '../../../shared/search/engine/refine-survivors.js';

const ids = (prefix: string, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe('SurvivorStore', () => {
  it('serves survivors only at the generation they were kept at', () => {
    const store = new SurvivorStore(100);
    store.set('q', '7', ['a', 'b']);
    expect(store.get('q', '7')).to.deep.equal(['a', 'b']);
    expect(store.get('q', '8')).to.equal(undefined);
    expect(store.get('other', '7')).to.equal(undefined);
    expect(store.stats).to.deep.include({ reused: 1, decided: 1, entries: 1, ids: 2 });
  });

  it('drops every survivor of another generation when one of a new generation is kept', () => {
    const store = new SurvivorStore(100);
    store.set('q1', '1', ['a']);
    store.set('q2', '1', ['b', 'c']);
    store.set('q3', '2', ['d']);
    expect(store.get('q1', '1')).to.equal(undefined);
    expect(store.get('q2', '2')).to.equal(undefined);
    expect(store.get('q3', '2')).to.deep.equal(['d']);
    expect(store.stats).to.deep.include({ entries: 1, ids: 1 });
  });

  it('holds at most its ids, the least recently used out first, and never a list larger than all', () => {
    const store = new SurvivorStore(10);
    store.set('a', 'g', ids('a', 4));
    store.set('b', 'g', ids('b', 4));
    expect(store.get('a', 'g')).to.have.length(4); // a is now the more recently used
    store.set('c', 'g', ids('c', 4));
    expect(store.get('b', 'g')).to.equal(undefined);
    expect(store.get('a', 'g')).to.have.length(4);
    expect(store.get('c', 'g')).to.have.length(4);
    store.set('huge', 'g', ids('h', 11));
    expect(store.get('huge', 'g')).to.equal(undefined);
    expect(store.stats).to.deep.include({ entries: 2, ids: 8 });
    // Kept again under the same key: counted once.
    store.set('a', 'g', ids('a', 2));
    expect(store.stats).to.deep.include({ entries: 2, ids: 6 });
  });
});
