/**
 * Prints the ratio tables of a `bench:peers` result file again (one per pairing), as the
 * current report code renders them: for a result written before a change to the report.
 * Usage: tsx scripts/bench/peers/render-tables.ts bench/results/peers-….json
 */
import { readFileSync } from 'node:fs';
import { ratioRows, renderRatioTable, type Repetition } from './peer-report.js';

interface ResultFile {
  pairings: { peer: string; cairnBackend: string; repetitions?: Repetition[] }[];
}

const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: render-tables.ts RESULT_FILE');
const result = JSON.parse(readFileSync(file, 'utf8')) as ResultFile;
for (const pairing of result.pairings) {
  if (!pairing.repetitions || pairing.repetitions.length === 0) continue;
  console.log(`## Cairn (${pairing.cairnBackend}) vs ${pairing.peer}\n`);
  console.log(renderRatioTable(pairing.peer, ratioRows(pairing.repetitions)));
  console.log('');
}
