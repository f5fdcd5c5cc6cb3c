#!/usr/bin/env bash
# Install, start, stop and report the real services the test suite needs.
#
#   bash scripts/services.sh <start|stop|status> [redis|elasticsearch|opensearch|keycloak ...]
#   bash scripts/services.sh cluster <start|stop|status> [redis|osnode1|osnode2|osnode3|balancer ...]
#
# With no service named, acts on all four. `cluster` acts on the cluster check's own set
# (scripts/services/cluster.sh): a 3-node OpenSearch cluster, HAProxy and a Redis, in their
# own run folder (CAIRN_RUN defaults to $CAIRN_CACHE/cluster) on their own ports (Redis 6391),
# beside the shared single-node services, which it never touches. `start` installs what is missing
# (Debian package, or a distribution fetched once with Maven), starts the
# services in parallel on 127.0.0.1, waits until each is healthy and prints
# `export` lines; the same lines are kept in $CAIRN_CACHE/run/env.sh for tests
# to source. Re-running `start` leaves healthy services alone.
#
# Environment (defaults in brackets):
#   CAIRN_CACHE [~/.cache/cairn]   downloads, distributions, data and logs
#   CAIRN_RUN [$CAIRN_CACHE/run]   pid files, data and logs of the instances (another folder
#                                  and other ports: a second set beside the first)
#   CAIRN_START_TIMEOUT [240]      seconds each service has to become healthy
#   CAIRN_STOP_TIMEOUT [30]        seconds before a graceful stop turns to SIGKILL
#   CAIRN_JAVA_HOME [java on PATH] JDK for Elasticsearch, OpenSearch, Keycloak
#   CAIRN_REDIS_PORT [6390]
#   ES_VERSION [8.19.21], CAIRN_ES_HTTP_PORT [9250], CAIRN_ES_TRANSPORT_PORT [9350]
#   OPENSEARCH_VERSION [2.19.6], CAIRN_OPENSEARCH_HTTP_PORT [9251],
#     CAIRN_OPENSEARCH_TRANSPORT_PORT [9351]
#   ES_JAVA_OPTS, OPENSEARCH_JAVA_OPTS [-Xms512m -Xmx1g -XX:TieredStopAtLevel=1]
#   KEYCLOAK_VERSION [26.5.6], CAIRN_KEYCLOAK_HTTP_PORT [8180],
#     CAIRN_KEYCLOAK_MANAGEMENT_PORT [9180],
#     KEYCLOAK_ADMIN_USERNAME / KEYCLOAK_ADMIN_PASSWORD [admin/admin],
#     JAVA_OPTS_APPEND [-XX:TieredStopAtLevel=1]
set -euo pipefail

CAIRN_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SERVICES=(redis elasticsearch opensearch keycloak)
if [[ "${1:-}" == cluster ]]; then
  shift
  SERVICES=(redis osnode1 osnode2 osnode3 balancer)
  export CAIRN_RUN="${CAIRN_RUN:-${CAIRN_CACHE:-$HOME/.cache/cairn}/cluster}"
  export CAIRN_REDIS_PORT="${CAIRN_CLUSTER_REDIS_PORT:-6391}"
  CLUSTER_MODE=1
fi

for f in lib redis search keycloak cluster; do
  # shellcheck source=/dev/null
  source "$CAIRN_ROOT/scripts/services/$f.sh"
done

start_one() {
  local svc="$1" pid url began=$SECONDS
  url="$("${svc}_url")"
  pid="$(service_pid "$svc")"
  if [[ -n "$pid" ]] && "${svc}_healthy"; then
    say "$svc" "already running (pid $pid) at $url"
    return 0
  fi
  # A service found running but not yet healthy is waited for, not relaunched.
  if [[ -z "$pid" ]]; then
    port_open "${url##*:}" && die "$svc" "port ${url##*:} is taken by another process"
    "${svc}_install"
    rm -f "$(pid_file "$svc")"
    : >"$(console_log "$svc")"
    pid="$("${svc}_launch")" || { fail_one "$svc"; return 1; }
  fi
  wait_healthy "$svc" "$pid" || { fail_one "$svc"; return 1; }
  say "$svc" "healthy at $url (pid $(service_pid "$svc"), $((SECONDS - began))s)"
}

# After a failed start: show the logs and stop whatever is left.
fail_one() {
  # shellcheck disable=SC2046 # one word per log file, none for some services
  show_logs "$1" $("${1}_logs")
  stop_one "$1"
}

stop_one() {
  local svc="$1" pid deadline=$((SECONDS + CAIRN_STOP_TIMEOUT))
  pid="$(service_pid "$svc")"
  if [[ -z "$pid" ]]; then
    rm -f "$(pid_file "$svc")"
    say "$svc" "not running"
    return 0
  fi
  signal_tree TERM "$pid"
  # Wait for the whole process group: an engine's server JVM can outlive its launcher for a
  # moment, still writing to its data folder.
  while { [[ -n "$(service_pid "$svc")" ]] || group_alive "$pid"; } && ((SECONDS < deadline)); do
    sleep 0.5
  done
  if [[ -n "$(service_pid "$svc")" ]] || group_alive "$pid"; then
    say "$svc" "still running after ${CAIRN_STOP_TIMEOUT}s, killing"
    signal_tree KILL "$pid"
    deadline=$((SECONDS + 10))
    while group_alive "$pid" && ((SECONDS < deadline)); do sleep 0.2; done
  fi
  rm -f "$(pid_file "$svc")"
  say "$svc" "stopped"
}

# One line per service; fails when any is not running and healthy.
status_one() {
  local svc="$1" pid state
  pid="$(service_pid "$svc")"
  if [[ -z "$pid" ]]; then
    state=stopped
  elif "${svc}_healthy"; then
    state=healthy
  else
    state=unhealthy
  fi
  printf '%-14s %-10s %-8s %s\n' "$svc" "$state" "${pid:--}" "$("${svc}_url")"
  [[ "$state" == healthy ]]
}

# Run "<action>_one" for every service at once; fail if any failed.
in_parallel() {
  local action="$1" svc failed=0
  local -a jobs=()
  for svc in "${@:2}"; do
    with_lock "$svc" "${action}_one" "$svc" &
    jobs+=("$!")
  done
  for job in "${jobs[@]}"; do wait "$job" || failed=1; done
  return "$failed"
}

write_env() {
  local file="$CAIRN_RUN/env.sh"
  mkdir -p "$CAIRN_RUN"
  if [[ -n "${CLUSTER_MODE:-}" ]]; then
    {
      printf 'export REDIS_URL=%s\n' "$(redis_url)"
      printf 'export OPENSEARCH_URL=http://127.0.0.1:%s\n' "$CLUSTER_ENGINE_LB_PORT"
      printf 'export CAIRN_CLUSTER_URL=%s\n' "$(balancer_url)"
    } >"$file.tmp"
    mv "$file.tmp" "$file"
    cat "$file"
    return 0
  fi
  {
    printf 'export REDIS_URL=%s\n' "$(redis_url)"
    printf 'export ELASTICSEARCH_URL=%s\n' "$(elasticsearch_url)"
    printf 'export OPENSEARCH_URL=%s\n' "$(opensearch_url)"
    printf 'export KEYCLOAK_URL=%s\n' "$(keycloak_url)"
    printf 'export KEYCLOAK_ADMIN_USERNAME=%s\n' "$KEYCLOAK_ADMIN_USERNAME"
    printf 'export KEYCLOAK_ADMIN_PASSWORD=%s\n' "$KEYCLOAK_ADMIN_PASSWORD"
  } >"$file.tmp"
  mv "$file.tmp" "$file"
  # The same services under the names the tests read, with the configuration's own names unset
  # so an app or CLI a test starts uses only the backend the test gives it. Sourcing this file
  # is all a developer needs before running one test file by hand.
  {
    printf 'source %q\n' "$file"
    printf 'export CAIRN_TEST_ELASTICSEARCH_URL="$ELASTICSEARCH_URL"\n'
    printf 'export CAIRN_TEST_OPENSEARCH_URL="$OPENSEARCH_URL"\n'
    printf 'export CAIRN_TEST_REDIS_URL="$REDIS_URL"\n'
    printf 'unset ELASTICSEARCH_URL OPENSEARCH_URL REDIS_URL\n'
  } >"$CAIRN_RUN/test-env.sh.tmp"
  mv "$CAIRN_RUN/test-env.sh.tmp" "$CAIRN_RUN/test-env.sh"
  # Shown without the admin password, which stays in the file only.
  sed 's/^\(export KEYCLOAK_ADMIN_PASSWORD=\).*/\1(hidden)/' "$file"
}

# Tools every start needs, from Debian when missing.
ensure_tools() {
  ensure_cmd curl curl
  ensure_cmd unzip unzip
  ensure_cmd unshare util-linux
  ensure_cmd java openjdk-17-jdk-headless
  ensure_cmd mvn maven
}

main() {
  local action="${1:-}" svc
  [[ "$action" =~ ^(start|stop|status)$ ]] ||
    die services "usage: $0 [cluster] <start|stop|status> [${SERVICES[*]}]"
  shift
  (($#)) || set -- "${SERVICES[@]}"
  for svc in "$@"; do
    [[ " ${SERVICES[*]} " == *" $svc "* ]] || die services "unknown service: $svc"
  done
  case "$action" in
  start)
    ensure_tools
    [[ -z "${CLUSTER_MODE:-}" ]] || ensure_cmd haproxy haproxy
    in_parallel start "$@"
    write_env
    ;;
  stop) in_parallel stop "$@" ;;
  status)
    local failed=0
    for svc in "$@"; do status_one "$svc" || failed=3; done
    return "$failed"
    ;;
  esac
}

main "$@"
