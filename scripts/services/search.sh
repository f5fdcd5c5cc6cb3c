# shellcheck shell=bash
# Elasticsearch 8 and OpenSearch 2 test distributions (integ-test-zip) from
# Maven Central, single node on loopback, run on the machine's JDK 17.
#
# ES 8.19.21 is the newest 8.x published there; OpenSearch 2.19.6 the newest
# 2.x. Both run on Java 17. The ES test zip ships x-pack-core/security, so
# security must be switched off explicitly; the OpenSearch one has no
# security plugin.

ES_VERSION="${ES_VERSION:-8.19.21}"
ES_HTTP_PORT="${CAIRN_ES_HTTP_PORT:-9250}"
ES_TRANSPORT_PORT="${CAIRN_ES_TRANSPORT_PORT:-9350}"
OPENSEARCH_VERSION="${OPENSEARCH_VERSION:-2.19.6}"
OPENSEARCH_HTTP_PORT="${CAIRN_OPENSEARCH_HTTP_PORT:-9251}"
OPENSEARCH_TRANSPORT_PORT="${CAIRN_OPENSEARCH_TRANSPORT_PORT:-9351}"
# JIT limited to C1: half the CPU time to start, ample speed for test loads.
SEARCH_JAVA_OPTS_DEFAULT="-Xms512m -Xmx1g -XX:TieredStopAtLevel=1"

# How the engine protects itself (docs/operations.md, "How the engine protects itself"; the
# reasoning in docs/decisions/hostile-load.md). Chosen for the 1 GB heap above: breakers that
# refuse a request (429, a 503 to the API's clients) before the heap runs out, a bound on the
# buckets of one answer, and a time after which nobody waits for a search (the API's engine
# client gives up at 30 s), so the engine ends it. Expensive queries stay allowed: LIKE
# patterns are wildcard queries, case-insensitive comparisons regexp queries; the API bounds
# them (QUERY_MAX_WILDCARD_PATTERNS). Elasticsearch 8 sizes its clause limit from the heap
# itself (indices.query.bool.max_clause_count is deprecated and ignored there) and has no
# search backpressure.
SEARCH_PROTECTION=(
  -Eindices.breaker.total.limit=90%
  -Eindices.breaker.request.limit=40%
  -Eindices.breaker.fielddata.limit=20%
  -Esearch.max_buckets=25000
  -Esearch.default_search_timeout=30s
  -Esearch.low_level_cancellation=true
)
# OpenSearch 2 also has a static clause limit (kept at 1,024, above QUERY_MAX_TEXT_WORDS and
# QUERY_MAX_FILTER_NODES), a hard cancellation after a time, and search backpressure:
# enforced, under duress (heap or CPU) it cancels the search tasks that ran or used the CPU
# for far longer than the API's query time budget (3 s).
OPENSEARCH_PROTECTION=(
  -Eindices.query.bool.max_clause_count=1024
  -Esearch.cancel_after_time_interval=30s
  -Esearch_backpressure.mode=enforced
  -Esearch_backpressure.search_task.elapsed_time_millis_threshold=10000
  -Esearch_backpressure.search_task.cpu_time_millis_threshold=10000
  -Esearch_backpressure.search_shard_task.elapsed_time_millis_threshold=10000
  -Esearch_backpressure.search_shard_task.cpu_time_millis_threshold=5000
)

# Start one engine: svc, dist dir, launcher name, http port, transport port,
# extra -E settings (the discovery settings among them). The JVM options and JDK come from the caller's env.
search_launch() {
  local svc="$1" home="$CAIRN_DIST/$2" bin="$3" http="$4" transport="$5"
  local dir
  dir="$(run_dir "$svc")"
  mkdir -p "$dir/data" "$dir/logs" "$dir/tmp"
  # Relative JVM paths in the shipped jvm.options (logs/gc.log) resolve here;
  # launch functions run in a subshell, so the caller's directory is kept.
  cd "$dir" || return
  spawn_non_root "$svc" "$home/bin/$bin" -d -p "$(pid_file "$svc")" \
    -Enetwork.host=127.0.0.1 \
    -Ehttp.port="$http" -Etransport.port="$transport" \
    -Epath.data="$dir/data" -Epath.logs="$dir/logs" \
    -Ecluster.routing.allocation.disk.threshold_enabled=false "${@:6}"
}

search_healthy() {
  curl -sf -o /dev/null "http://127.0.0.1:$1/_cluster/health?wait_for_status=yellow&timeout=5s"
}

elasticsearch_url() { printf 'http://127.0.0.1:%s\n' "$ES_HTTP_PORT"; }
elasticsearch_marker() { printf '%s\n' "$CAIRN_DIST/elasticsearch-$ES_VERSION/"; }
elasticsearch_logs() { printf '%s\n' "$CAIRN_RUN/elasticsearch/logs/elasticsearch.log"; }
elasticsearch_healthy() { search_healthy "$ES_HTTP_PORT"; }

elasticsearch_install() {
  install_maven_dist elasticsearch \
    "org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION:zip" \
    "elasticsearch-$ES_VERSION"
}

elasticsearch_launch() {
  ES_JAVA_HOME="$(java_home)" \
    ES_JAVA_OPTS="${ES_JAVA_OPTS:-$SEARCH_JAVA_OPTS_DEFAULT}" \
    ES_TMPDIR="$CAIRN_RUN/elasticsearch/tmp" \
    search_launch elasticsearch "elasticsearch-$ES_VERSION" elasticsearch \
    "$ES_HTTP_PORT" "$ES_TRANSPORT_PORT" -Ediscovery.type=single-node \
    -Expack.security.enabled=false "${SEARCH_PROTECTION[@]}"
}

opensearch_url() { printf 'http://127.0.0.1:%s\n' "$OPENSEARCH_HTTP_PORT"; }
opensearch_marker() { printf '%s\n' "$CAIRN_DIST/opensearch-$OPENSEARCH_VERSION/"; }
opensearch_logs() { printf '%s\n' "$CAIRN_RUN/opensearch/logs/opensearch.log"; }
opensearch_healthy() { search_healthy "$OPENSEARCH_HTTP_PORT"; }

opensearch_install() {
  install_maven_dist opensearch \
    "org.opensearch.distribution.integ-test-zip:opensearch:$OPENSEARCH_VERSION:zip" \
    "opensearch-$OPENSEARCH_VERSION"
  opensearch_install_geo_module
}

# The test distribution lacks the geo module that provides geo_shape; Cairn's default
# spatial mode on OpenSearch ("shape") needs it. Its jar is on Maven Central: fetch it by
# coordinates and install it as a module, once.
opensearch_install_geo_module() {
  local module="$CAIRN_DIST/opensearch-$OPENSEARCH_VERSION/modules/geo"
  [[ -f "$module/plugin-descriptor.properties" ]] && return 0
  say opensearch "adding the geo module (geo_shape)"
  rm -rf "$module.tmp" && mkdir -p "$module.tmp"
  mvn -B -q "$MVN_DEPENDENCY_PLUGIN:copy" \
    -Dartifact="org.opensearch.plugin:geo:$OPENSEARCH_VERSION:jar" \
    -DoutputDirectory="$module.tmp" >"$module.tmp/mvn.log" 2>&1 ||
    { cat "$module.tmp/mvn.log" >&2; die opensearch "mvn could not fetch the geo module"; }
  rm -f "$module.tmp/mvn.log"
  printf '%s\n' \
    'description=Geo module (geo_shape and geo aggregations)' \
    "version=$OPENSEARCH_VERSION" \
    'name=geo' \
    'classname=org.opensearch.geo.GeoModulePlugin' \
    'java.version=11' \
    "opensearch.version=$OPENSEARCH_VERSION" \
    'extended.plugins=' \
    'has.native.controller=false' >"$module.tmp/plugin-descriptor.properties"
  mv "$module.tmp" "$module"
}

opensearch_launch() {
  OPENSEARCH_JAVA_HOME="$(java_home)" \
    OPENSEARCH_JAVA_OPTS="${OPENSEARCH_JAVA_OPTS:-$SEARCH_JAVA_OPTS_DEFAULT}" \
    OPENSEARCH_TMPDIR="$CAIRN_RUN/opensearch/tmp" \
    search_launch opensearch "opensearch-$OPENSEARCH_VERSION" opensearch \
    "$OPENSEARCH_HTTP_PORT" "$OPENSEARCH_TRANSPORT_PORT" -Ediscovery.type=single-node \
    "${SEARCH_PROTECTION[@]}" "${OPENSEARCH_PROTECTION[@]}"
}
