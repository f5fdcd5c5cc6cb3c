/**
 * SQL fragments with bound parameters for the SQLite filter translation, and the R*Tree box
 * conditions its spatial operators start from. No user text is ever SQL: values are `?`
 * parameters, and only trusted text (column names, keywords) is raw.
 */
import type { Bbox } from '../../records/core-record.js';
import type { SqlFragment, SqlValue } from './compile-query.js';
import { METRES_PER_DEGREE } from './sql-functions.js';

/** A fragment with bound parameters, in the order their `?` appear. */
export type Fragment = SqlFragment;

/** One bound parameter. */
export function param(value: SqlValue): Fragment {
  return { sql: '?', params: [value] };
}

/** Trusted SQL text (column names, keywords); never user text. */
export function raw(text: string): Fragment {
  return { sql: text, params: [] };
}

/** Builds a fragment from a template whose interpolations are fragments, keeping param order. */
export function sql(strings: TemplateStringsArray, ...parts: Fragment[]): Fragment {
  let text = '';
  const params: SqlValue[] = [];
  // A template has one string more than interpolations: each but the last is followed by one.
  strings.forEach((string, index) => {
    text += string;
    const part = parts[index];
    if (part === undefined) return;
    text += part.sql;
    params.push(...part.params);
  });
  return { sql: text, params };
}

/**
 * Joins fragments with an associative operator (AND, OR), in parentheses. Long lists are
 * grouped as a balanced tree: SQLite limits an expression tree's depth (1000), and `a OR b OR
 * c …` nests one level per operand, where balanced groups nest log2(n) levels.
 */
export function joinFragments(parts: Fragment[], separator: string): Fragment {
  if (parts.length > JOIN_GROUP) {
    const groups: Fragment[] = [];
    for (let index = 0; index < parts.length; index += JOIN_GROUP) {
      groups.push(joinFragments(parts.slice(index, index + JOIN_GROUP), separator));
    }
    return joinFragments(groups, separator);
  }
  return {
    sql: `(${parts.map((part) => part.sql).join(separator)})`,
    params: parts.flatMap((part) => part.params),
  };
}

/** Operands per parenthesised group when joining long lists (see joinFragments). */
const JOIN_GROUP = 16;

export const TRUE = raw('1');
export const FALSE = raw('0');

// ---------------------------------------------------------------------------------------------
// R*Tree boxes

/**
 * The two forms of an R*Tree prefilter `r.rid IN (SELECT … WHERE <boxes>)`. The driving form
 * (the one every compiler emits) lets SQLite start from the R*Tree's matches; the probing form
 * checks each record's own one or two entries, for a page read in the order of a column index
 * where the matches are dense (compile-query.ts chooses). Both are TRUE or FALSE, never NULL,
 * for the same records; the probing form is made from the driving one by probeForm().
 */
export const RTREE_DRIVE = 'r.rid IN (SELECT t.id >> 1 FROM records_rtree t WHERE ';
const RTREE_PROBE =
  'EXISTS (SELECT 1 FROM records_rtree t WHERE t.id IN (r.rid * 2, r.rid * 2 + 1) AND ';

/** A condition with every driving R*Tree prefilter turned into its probing form. */
export function probeForm(condition: string): string {
  return condition.replaceAll(RTREE_DRIVE, RTREE_PROBE);
}

/** Half the catalogue's largest rowid: where a count split in two (halfForm) cuts the rowids. */
const HALF_ROWID = '(SELECT max(rid) FROM records) / 2';

/**
 * A condition held to one half of the rowids (at or below HALF_ROWID, or above it), for a
 * count split in two whose halves add up to the whole count: the rowid test in front
 * partitions the records, and each driving R*Tree prefilter inside reads only the entries of
 * that half, so each half looks up about half the R*Tree's matches. Within the half the
 * narrowed prefilter holds for exactly the records the whole one holds for, so the condition's
 * value (under NOT and OR too) is unchanged there. (With several query boxes, OR-joined, the
 * narrowing binds to the first box only: still correct, less saved.)
 */
export function halfForm(condition: string, half: 'lower' | 'upper'): string {
  const side = half === 'lower' ? '<=' : '>';
  const narrowed = condition.replaceAll(
    RTREE_DRIVE,
    `${RTREE_DRIVE}(t.id >> 1) ${side} ${HALF_ROWID} AND `,
  );
  return `r.rid ${side} ${HALF_ROWID} AND (${narrowed})`;
}

/** The R*Tree condition "entry `alias` meets one of the boxes". */
export function boxesMeet(boxes: Bbox[], alias = 't'): Fragment {
  const parts = boxes.map(
    ([west, south, east, north]) =>
      sql`(${raw(alias)}.minx <= ${param(east)} AND ${raw(alias)}.maxx >= ${param(west)} AND ${raw(alias)}.miny <= ${param(north)} AND ${raw(alias)}.maxy >= ${param(south)})`,
  );
  return joinFragments(parts, ' OR ');
}

/** Records with an R*Tree box meeting one of the query boxes (the driving form). */
export function boxPrefilter(boxes: Bbox[]): Fragment {
  return sql`${raw(RTREE_DRIVE)}${boxesMeet(boxes)})`;
}

/**
 * FROM and WHERE selecting, from the R*Tree alone, one entry of each record with a box meeting
 * one of the boxes: every matching entry, except the second part of an antimeridian record
 * whose first part matches too (entry ids are rowid * 2 + part).
 */
export function boxMatchesFrom(boxes: Bbox[], guard: string): Fragment {
  return sql`FROM records_rtree t WHERE ${raw(guard)}${boxesMeet(boxes)} AND (t.id & 1 = 0 OR NOT EXISTS (SELECT 1 FROM records_rtree s WHERE s.id = t.id - 1 AND ${boxesMeet(boxes, 's')}))`;
}

/**
 * True when every R*Tree box of the record lies inside one of the query boxes (callers use it
 * only for records with a box). When no query box reaches the antimeridian this is the set of
 * records with some box inside, built once per statement: a record with one box is in it
 * exactly when that box is inside, and both boxes of a record split at the antimeridian end
 * at 180 or -180 (stored exactly), so neither is inside such query boxes. Otherwise each
 * record's own boxes are checked.
 */
export function boxesInside(boxes: Bbox[]): Fragment {
  const parts = boxes.map(
    ([west, south, east, north]) =>
      sql`(t.minx >= ${param(west)} AND t.maxx <= ${param(east)} AND t.miny >= ${param(south)} AND t.maxy <= ${param(north)})`,
  );
  const inside = joinFragments(parts, ' OR ');
  if (boxes.every(([west, , east]) => west > -180 && east < 180)) {
    return sql`${raw(RTREE_DRIVE)}${inside})`;
  }
  return sql`NOT EXISTS (SELECT 1 FROM records_rtree t WHERE t.id IN (r.rid * 2, r.rid * 2 + 1) AND NOT ${inside})`;
}

/** More than the rounding of R*Tree coordinates (32-bit floats, rounded outwards), in degrees. */
export const RTREE_MARGIN = 1e-4;

/** Boxes grown (or, with a negative margin, shrunk) by degrees; boxes shrunk away are dropped. */
export function padBoxes(boxes: Bbox[], margin: number): Bbox[] {
  return boxes
    .map(([west, south, east, north]): Bbox => [
      west - margin,
      south - margin,
      east + margin,
      north + margin,
    ])
    .filter(([west, south, east, north]) => west < east && south < north);
}

/** Query boxes grown by a distance, wrapped at the antimeridian and clamped at the poles. */
export function growBoxes(boxes: Bbox[], metres: number): Bbox[] {
  const dLat = metres / METRES_PER_DEGREE;
  return boxes.flatMap(([west, south, east, north]): Bbox[] => {
    const s = Math.max(-90, south - dLat);
    const n = Math.min(90, north + dLat);
    const widest = Math.max(Math.abs(s), Math.abs(n));
    const dLon = widest >= 89.9 ? 360 : dLat / Math.cos((widest * Math.PI) / 180);
    const [w, e] = [west - dLon, east + dLon];
    if (e - w >= 360) return [[-180, s, 180, n]];
    if (w < -180) {
      return [
        [w + 360, s, 180, n],
        [-180, s, e, n],
      ];
    }
    if (e > 180) {
      return [
        [w, s, 180, n],
        [-180, s, e - 360, n],
      ];
    }
    return [[w, s, e, n]];
  });
}
