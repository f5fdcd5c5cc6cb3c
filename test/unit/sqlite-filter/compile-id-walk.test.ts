/**
 * The SQLite statement of the id walk (shared/search/sqlite/compile-id-walk.ts): one statement in
 * id order with every value bound, the deadline guard in front of its conditions.
 */
import { expect } from 'chai';
import { compileIdWalk } from '../../../shared/search/sqlite/compile-id-walk.js';

describe('SQLite id walk statement', () => {
  it('reads the ids in order, bounded, skipped and limited by bound values', () => {
    expect(compileIdWalk({ after: 'a', through: "b'; --", skip: 4, limit: 2 })).to.deep.equal({
      sql: 'SELECT r.id FROM records r WHERE r.id > ? AND r.id <= ? ORDER BY r.id LIMIT ? OFFSET ?',
      params: ['a', "b'; --", 2, 4],
    });
  });

  it('reads updated beside the id when asked, and puts the guard first', () => {
    expect(compileIdWalk({ limit: 10, withUpdated: true }, 'GUARD AND ')).to.deep.equal({
      sql: 'SELECT r.id, r.updated FROM records r WHERE GUARD AND 1 ORDER BY r.id LIMIT ? OFFSET ?',
      params: [10, 0],
    });
  });
});
