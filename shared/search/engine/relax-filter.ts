/**
 * The relaxed engine query of a filter the engine cannot answer exactly: a query whose matches
 * are a superset of the records the filter selects, for the engine to narrow a search before
 * the filter is decided exactly in Node (refine-search.ts).
 *
 * Each predicate (an operator other than AND, OR, NOT) is compiled on its own by the exact
 * compiler (compile-filter.ts) for the polarity it has in the tree (TRUE outside NOT, FALSE
 * under an odd number of NOTs). Where the compiler refuses it (UnsupportedFilterError), it is
 * replaced by an over-approximation of the records where it has that polarity; where the
 * compiler's answer is unproven for some documents (its doubts), those documents are added.
 * AND and OR keep their structure, so the relaxed query is a superset: every record the filter
 * selects is TRUE on every path the three-valued logic took, and each path was only widened.
 */
import { UnsupportedFilterError } from '../../errors/index.js';
import { METRES_PER_DEGREE } from '../../query/cql2-functions.js';
import { logicalOperands, notChecked } from '../../query/check-filter.js';
import type {
  CheckedExpression,
  CheckedFilter,
  CheckedOperator,
} from '../../query/checked-filter.js';
import type { Bbox } from '../../records/core-record.js';
import { compileFilterDsl, type FilterContext } from './compile-filter.js';
import { compileSpatialRelation } from './compile-spatial.js';
import { allOf, anyOf, matchAll, type Query } from './dsl.js';

/** The relaxed query, and the operators it had to relax (for messages). */
export interface RelaxedFilter {
  query: Query;
  /** The operators the engine could not answer exactly: refused, or unproven for some records. */
  operators: string[];
}

/** Relations whose truth implies that the two geometries intersect. */
const INTERSECTING = new Set([
  's_intersects',
  's_equals',
  's_touches',
  's_crosses',
  's_overlaps',
  's_within',
  's_contains',
]);

const isGeometryOperand = (expression: CheckedExpression): boolean =>
  expression.kind === 'geometry' || expression.kind === 'bbox';

/** The box of a spatial literal (west > east when a BBOX crosses the antimeridian). */
function literalBox(expression: CheckedExpression): Bbox | undefined {
  if (expression.kind === 'bbox') return expression.box;
  return expression.kind === 'geometry' ? expression.envelope : undefined;
}

/**
 * Boxes covering every point within `metres` of a box (great-circle metres), generously: the
 * longitude margin is taken at the latitude farthest from the equator, grown by a tenth, and the
 * box wraps at the antimeridian. Undefined when the grown area covers every longitude.
 */
export function growBox([west, south, east, north]: Bbox, metres: number): Bbox[] | undefined {
  const degrees = (metres / METRES_PER_DEGREE) * 1.1 + 1e-6;
  const s = Math.max(-90, south - degrees);
  const n = Math.min(90, north + degrees);
  const widest = Math.max(Math.abs(s), Math.abs(n));
  if (widest >= 89 || degrees > 10) return undefined;
  const dLon = degrees / Math.cos((widest * Math.PI) / 180);
  const [w, e] = west <= east ? [west - dLon, east + dLon] : [west - dLon, east + dLon + 360];
  if (e - w >= 360) return undefined;
  const wrap = (x: number): number => (x < -180 ? x + 360 : x > 180 ? x - 360 : x);
  return [[wrap(w), s, wrap(e), n]];
}

/**
 * An over-approximation of where a predicate the engine refused has the given polarity: for a
 * spatial relation that implies intersection (or DWithin), TRUE needs the footprint to meet the
 * literal (or the literal grown by the distance), which the engine can narrow to; anything else
 * may hold anywhere.
 */
function overApproximate(node: CheckedOperator, polarity: boolean): Query {
  const op = node.op.toLowerCase();
  if (!polarity) return matchAll();
  const [a, b] = node.args;
  const literal = a && isGeometryOperand(a) ? a : b && isGeometryOperand(b) ? b : undefined;
  const record = literal === a ? b : a;
  if (!literal || record?.kind !== 'property') return matchAll();
  const box = literalBox(literal);
  if (!box) return matchAll();
  if (INTERSECTING.has(op)) return envelopeMeets([box]);
  if (op === 's_dwithin') {
    const distance = node.args[2];
    if (distance?.kind !== 'literal' || typeof distance.value !== 'number') return matchAll();
    const grown = growBox(box, Math.max(0, distance.value));
    return grown ? envelopeMeets(grown) : matchAll();
  }
  return matchAll();
}

/**
 * The records whose bounding box meets one of the boxes (grown by a hair): every footprint that
 * meets a geometry has a box that meets the geometry's box. The boxes are indexed as doubles in
 * both spatial modes, so this holds exactly, where geo_shape's quantised coordinates may miss
 * a footprint that only touches the geometry.
 */
function envelopeMeets(boxes: Bbox[]): Query {
  return anyOf(
    boxes.map(([west, south, east, north]) =>
      compileSpatialRelation('envelope', 'intersects', {
        bbox: [
          Math.max(-180, west - EDGE_MARGIN),
          Math.max(-90, south - EDGE_MARGIN),
          Math.min(180, east + EDGE_MARGIN),
          Math.min(90, north + EDGE_MARGIN),
        ],
      }),
    ),
  );
}

/** Degrees added around boxes an over-approximation compares (rounding of literal coordinates). */
const EDGE_MARGIN = 1e-9;

function relax(
  expression: CheckedFilter,
  polarity: boolean,
  context: FilterContext,
  operators: string[],
): Query {
  const logical = logicalOperands(expression);
  if (logical && logical.op !== 'not') {
    const parts = logical.operands.map((operand) => relax(operand, polarity, context, operators));
    // AND is TRUE when all parts are, FALSE when any is (OR the other way round).
    return (logical.op === 'and') === polarity ? allOf(parts) : anyOf(parts);
  }
  const negated = logical?.op === 'not' ? logical.operands[0] : undefined;
  if (negated !== undefined && logical?.operands.length === 1) {
    return relax(negated, !polarity, context, operators);
  }
  const doubts: NonNullable<FilterContext['doubts']> = [];
  try {
    const exact = compileFilterDsl(polarity ? expression : notChecked(expression), {
      ...context,
      doubts,
    });
    if (doubts.length === 0) return exact;
    operators.push(...doubts.map((doubt) => doubt.operator));
    return anyOf([exact, ...doubts.map((doubt) => doubt.query)]);
  } catch (error) {
    if (!(error instanceof UnsupportedFilterError) || expression.kind !== 'op') throw error;
    operators.push(error.operator);
    return overApproximate(expression, polarity);
  }
}

/**
 * The relaxed engine query of a filter: matches every record the filter selects (and maybe
 * more). FilterErrors other than UnsupportedFilterError (a filter that is invalid everywhere)
 * are thrown as they are.
 */
export function relaxFilter(filter: CheckedFilter, context: FilterContext): RelaxedFilter {
  const operators: string[] = [];
  const query = relax(filter, true, context, operators);
  return { query, operators: [...new Set(operators)] };
}
