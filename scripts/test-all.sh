#!/usr/bin/env bash
# The README's test command: installs what the tests need, starts the real services, runs
# every suite (in parallel where they share no state, then the fault suite alone), stops the
# services, and ends with one line "N passed, N failed, N skipped". Exits non-zero on any failure.
#
#   bash scripts/test-all.sh            # everything, from a fresh clone
#   SKIP_INSTALL=1 bash scripts/test-all.sh   # reuse node_modules
set -uo pipefail
cd "$(dirname "$0")/.."

results=$(mktemp -d)
# Coverage: one report per covered suite, then all of them merged and held to the floor the
# README states (COVERAGE=0 runs without c8).
coverage_dir="$PWD/coverage"
COVERAGE_FLOOR_LINES="${COVERAGE_FLOOR_LINES:-80}"
rm -rf "$coverage_dir"
services_started=0
cleanup() {
  if [[ "$services_started" == "1" && "${KEEP_SERVICES:-0}" != "1" ]]; then
    bash scripts/services.sh stop >/dev/null 2>&1 || true
  fi
  rm -rf "$results"
}
trap cleanup EXIT
extra_failures=0
# What each of those failures was, repeated with the failed tests at the end.
extra_reasons=()
fail_extra() { extra_failures=$((extra_failures + 1)); extra_reasons+=("$1"); }

step() { printf '\n=== %s\n' "$*"; }

install_dependencies() {
  if [[ "${SKIP_INSTALL:-0}" == "1" && -d node_modules ]]; then return 0; fi
  step "npm ci"
  # Native addons (better-sqlite3) build against the machine's Node headers when present.
  if [[ -z "${npm_config_nodedir:-}" && -f /usr/include/node/node.h ]]; then export npm_config_nodedir=/usr; fi
  npm ci --no-audit --no-fund
}

# Runs one mocha suite in the background; its output and counts land in $results. Suites named
# in COVERED_SUITES run under c8 (.c8rc.json: services/ and shared/ only), which collects V8's
# coverage of every process the suite starts, the API and worker processes included.
COVERED_SUITES=" unit integration system system-es system-os "
start_suite() {
  local name=$1; shift
  local runner=(npx mocha)
  if [[ "${COVERAGE:-1}" == "1" && "$COVERED_SUITES" == *" $name "* ]]; then
    runner=(npx c8 --temp-directory "$coverage_dir/raw/$name" --report-dir "$coverage_dir/$name" npx mocha)
  fi
  MOCHA_SUMMARY_FILE="$results/$name.json" "${runner[@]}" --reporter test/support/summary-reporter.cjs "$@" \
    >"$results/$name.log" 2>&1 &
  echo $! >"$results/$name.pid"
}

finish_suite() {
  local name=$1
  wait "$(cat "$results/$name.pid")"
  local code=$?
  step "suite: $name (exit $code)"
  cat "$results/$name.log"
  if [[ ! -s "$results/$name.json" ]]; then
    echo "suite $name produced no summary (crashed before finishing)"
    fail_extra "suite $name produced no summary (crashed before finishing)"
  fi
}

# Debian tools the tests use: xmllint validates written XML against the OGC/ISO schemas;
# Chromium runs the browser tests of the HTML interface; GDAL's ogrinfo (gdal-bin) is a client
# of the interoperability tests.
install_system_tools() {
  local missing=()
  command -v xmllint >/dev/null || missing+=(libxml2-utils)
  command -v chromium >/dev/null || missing+=(chromium)
  command -v ogrinfo >/dev/null || missing+=(gdal-bin)
  ((${#missing[@]} == 0)) && return 0
  step "apt-get install ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

install_dependencies || { echo "0 passed, 1 failed"; exit 1; }
# The peggy parsers are generated, not committed (npm ci's prepare makes them; SKIP_INSTALL does not).
npm run --silent build:grammars >/dev/null || { echo "generating the parsers failed"; echo "0 passed, 1 failed"; exit 1; }
install_system_tools || { echo "0 passed, 1 failed"; exit 1; }

# The real services start in the background while lint and unit tests run. A first Keycloak
# start builds its server (minutes on a loaded machine), hence the generous timeout.
export CAIRN_START_TIMEOUT="${CAIRN_START_TIMEOUT:-600}"
step "starting services (redis, elasticsearch, opensearch, keycloak) in the background"
# Services that were already running before this run are left running afterwards.
bash scripts/services.sh status >/dev/null 2>&1 || services_started=1
bash scripts/services.sh start >"$results/services.log" 2>&1 &
services_pid=$!

step "lint"
if ! npm run --silent lint; then
  echo "lint failed"
  fail_extra "lint failed (npm run lint)"
fi

start_suite unit 'test/unit/**/*.test.ts'
finish_suite unit

step "waiting for services"
if wait "$services_pid"; then
  cat "$results/services.log"
  # shellcheck source=/dev/null
  # Tests address the services under CAIRN_TEST_* names. The configuration's own names stay
  # unset, so that every app and CLI a test starts uses only the backend the test gives it.
  source "${CAIRN_CACHE:-$HOME/.cache/cairn}/run/test-env.sh"
else
  cat "$results/services.log"
  echo "services failed to start; the suites that need them will fail"
  fail_extra "services failed to start"
fi

start_suite integration 'test/integration/**/*.test.ts'
# The system suites on SQLite; the CSW suites there run on SQLite only (CAIRN_TEST_SYSTEM_BACKEND,
# see test/support/system-backend.ts), as the engine runs below cover the engines. Their SQLite
# files are read by 2 read worker threads, as a server reads by default (one per core here).
CAIRN_TEST_SQLITE_READ_WORKERS=2 CAIRN_TEST_SYSTEM_BACKEND=sqlite start_suite system 'test/system/**/*.test.ts'
# The protocol suites — OGC API – Records, STAC, CSW (with its transactions) and OpenSearch — run
# again, unchanged, on each search engine: Elasticsearch in spatial mode envelope, OpenSearch in
# mode shape, each suite on fresh aliases of its own. The other system suites are about SQLite
# itself or the processes around the API (its files and WAL, the ingest and enqueue CLIs,
# harvesting, limits, metrics, the admin pages, npm start) and run on SQLite only; the query
# cost limits run on both, as deep pages and their next links differ by backend, and so does
# the load of every data set through the ingest CLI (ingest-datasets), the years 0000–9999
# (historical-dates) and the CQL2 conformance cases over HTTP on data the CLI loaded
# (cql2-http), which are about what each backend stores and compares. The hostile-load suite
# (8 attackers per class beside a benign client, test/system/hostile-load.test.ts) is about the
# engines and declares nothing on SQLite. The sitemaps' walks over the record ids differ by
# backend too (web-discovery), and so do the queryables learned from the records, which each
# backend keeps in its own store (learned-queryables), and what makes the result cache's
# generation move (result-cache: the SQLite file's change counter; Redis, the queues and the
# workers).
engine_system_suites=(
  'test/system/records-*.test.ts' test/system/stac-api.test.ts test/system/transactions.test.ts
  test/system/stac-collection-search.test.ts test/system/stac-aggregate.test.ts
  'test/system/csw-*.test.ts' test/system/opensearch.test.ts test/system/readme-examples.test.ts
  test/system/query-cost.test.ts test/system/ingest-datasets.test.ts
  test/system/historical-dates.test.ts test/system/cql2-http.test.ts
  test/system/hostile-load.test.ts test/system/expensive-lane.test.ts
  test/system/web-discovery.test.ts
  test/system/stac-schemas.test.ts test/system/oai.test.ts
  test/system/learned-queryables.test.ts
  test/system/result-cache.test.ts
)
# A generous per-test timeout: index creation and refresh on a loaded machine are slower than a
# SQLite file.
CAIRN_TEST_SYSTEM_BACKEND=elasticsearch start_suite system-es --timeout 60000 "${engine_system_suites[@]}"
CAIRN_TEST_SYSTEM_BACKEND=opensearch start_suite system-os --timeout 60000 "${engine_system_suites[@]}"
# Interoperability: real external clients (Python, in a cached venv) against a real server.
INTEROP_SUMMARY_FILE="$results/interop.json" bash test/interop/run.sh >"$results/interop.log" 2>&1 &
echo $! >"$results/interop.pid"
start_suite browser 'test/browser/**/*.test.ts'
# Peers: Cairn's harvester against real pycsw 3 (CSW, OGC API – Records, OAI-PMH) and SFEOS
# (STAC API, on the shared OpenSearch), installed from PyPI into the peer bench's venv
# (scripts/python-env.sh peers: a few minutes the first time, cached after) and started on
# loopback. A peer that cannot be installed or started fails the suite.
start_suite peers 'test/peers/**/*.test.ts'
for suite in integration system system-es system-os interop browser peers; do finish_suite "$suite"; done

# Faults: the suite stops and starts real processes — its own Elasticsearch node and Redis
# (started through scripts/services.sh in a run folder of their own), API and worker
# processes — and uses the shared services only as the others do. It runs alone, after the
# parallel suites, so that its engine start and restart do not compete with them for the CPU.
start_suite faults 'test/faults/**/*.test.ts'
finish_suite faults

# Cluster: the reduced cluster check (scripts/cluster-check.ts --records 5000: a 3-node
# OpenSearch cluster, HAProxy, its own Redis, two API replicas and two workers, with an engine
# node, an API replica and a worker killed under load), each verdict a test. Its own ports and
# run folder; alone at the end, since three engine nodes starting would slow the other suites.
start_suite cluster 'test/cluster/**/*.test.ts'
finish_suite cluster

# Coverage per suite (each suite's own summary is at the end of its log), then merged.
if [[ "${COVERAGE:-1}" == "1" && -d "$coverage_dir/raw" ]]; then
  step "coverage (services/ and shared/, lines): per suite, and all suites merged"
  for suite in $COVERED_SUITES; do
    summary_file="$coverage_dir/$suite/coverage-summary.json"
    [[ -f "$summary_file" ]] && node -e '
      const t = require(process.argv[1]).total;
      console.log(`${process.argv[2].padEnd(12)} lines ${t.lines.pct}%  branches ${t.branches.pct}%  functions ${t.functions.pct}%`);
    ' "$summary_file" "$suite"
  done
  mkdir -p "$coverage_dir/raw/all"
  find "$coverage_dir/raw" -mindepth 2 -maxdepth 2 -name '*.json' -not -path '*/all/*' \
    -exec cp {} "$coverage_dir/raw/all/" \;
  if ! npx c8 report --temp-directory "$coverage_dir/raw/all" --report-dir "$coverage_dir/all" \
    --check-coverage --lines "$COVERAGE_FLOOR_LINES"; then
    echo "coverage of services/ and shared/ is under the floor of $COVERAGE_FLOOR_LINES% of lines"
    fail_extra "coverage of services/ and shared/ under the floor of $COVERAGE_FLOOR_LINES% of lines"
  fi
  rm -rf "$coverage_dir/raw"
fi

# Every failed test again, by suite, just above the counts: a long log is often read from its end.
node -e '
  const fs = require("fs");
  const dir = process.argv[1];
  const lines = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
    const { failures = [] } = JSON.parse(fs.readFileSync(`${dir}/${file}`, "utf8"));
    for (const f of failures) {
      lines.push(`- [${file.replace(/\.json$/, "")}] ${f.title}${f.file ? ` (${f.file})` : ""}`);
      lines.push(...String(f.message).split("\n").slice(0, 8).map((l) => `    ${l}`));
    }
  }
  for (const reason of process.argv.slice(2)) lines.push(`- ${reason}`);
  if (lines.length > 0) console.log(["", "=== failed tests", ...lines].join("\n"));
' "$results" "${extra_reasons[@]}"

summary=$(node -e '
  const fs = require("fs");
  const dir = process.argv[1];
  const total = { passed: 0, failed: Number(process.argv[2]), skipped: 0 };
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".json"))) {
    const counts = JSON.parse(fs.readFileSync(`${dir}/${file}`, "utf8"));
    for (const key of Object.keys(total)) total[key] += counts[key];
  }
  console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
' "$results" "$extra_failures")
echo
echo "$summary"
[[ "$summary" == *" 0 failed,"* ]]
