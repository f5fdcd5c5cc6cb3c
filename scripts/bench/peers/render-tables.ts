/**
 * Prints the tables of a `bench:peers` result file again (per pairing: the ratios, and for the
 * SFEOS pairings the engine alone, the reader and the splicer beside them), as the current report code
 * renders them: for a result written before a change to the report.
 * Usage: tsx scripts/bench/peers/render-tables.ts bench/results/peers-….json
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import {
  engineCeilingRows,
  ratioRows,
  readerFloorRows,
  renderEngineCeilingTable,
  renderRatioTable,
  renderReaderFloorTable,
  type Repetition,
} from './peer-report.js';

interface ResultFile {
  pairings: { peer: string; cairnBackend: string; repetitions?: Repetition[] }[];
}

/** How many times SFEOS's req/s and p99 the performance target asks of Cairn at concurrency 16. */
const SFEOS_FACTOR = 3;

const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: render-tables.ts RESULT_FILE');
const result = JSON.parse(readFileSync(file, 'utf8')) as ResultFile;
for (const pairing of result.pairings) {
  const { repetitions } = pairing;
  if (!repetitions || repetitions.length === 0) continue;
  console.log(`## Cairn (${pairing.cairnBackend}) vs ${pairing.peer}\n`);
  console.log(renderRatioTable(pairing.peer, ratioRows(repetitions)));
  console.log('');
  const cores = availableParallelism();
  const engine = engineCeilingRows(repetitions, cores);
  if (engine.length > 0) {
    console.log(
      `The engine alone beside them:\n\n${renderEngineCeilingTable(pairing.peer, engine)}\n`,
    );
  }
  for (const side of ['reader', 'splicer'] as const) {
    const rows = readerFloorRows(repetitions, cores, SFEOS_FACTOR, side);
    if (rows.length === 0) continue;
    console.log(
      `The ${side} beside them:\n\n${renderReaderFloorTable(pairing.peer, rows, SFEOS_FACTOR, side)}\n`,
    );
  }
}
