# shellcheck shell=bash
# Shared helpers for scripts/services.sh (sourced, not executed). Progress
# goes to stderr, so that stdout of `start` is only the export lines.
#
# Layout under $CAIRN_CACHE (outside git):
#   dist/<name>-<version>/   unpacked distributions (installed once, reused)
#   run/<service>/           pid file, console log, data and logs of one service
#   run/env.sh               URLs for tests: `source "$CAIRN_CACHE/run/env.sh"`
# CAIRN_RUN may name another run folder: a second set of instances (on other ports) that
# reuses the unpacked distributions, as the fault suite does (test/faults/).

CAIRN_CACHE="${CAIRN_CACHE:-$HOME/.cache/cairn}"
CAIRN_DIST="$CAIRN_CACHE/dist"
CAIRN_RUN="${CAIRN_RUN:-$CAIRN_CACHE/run}"
# Seconds each service may take to become healthy, and to stop gracefully.
CAIRN_START_TIMEOUT="${CAIRN_START_TIMEOUT:-240}"
CAIRN_STOP_TIMEOUT="${CAIRN_STOP_TIMEOUT:-30}"
# Pinned so that the Maven plugin resolves the same way everywhere.
MVN_DEPENDENCY_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

say() { printf '[%s] %s\n' "$1" "${*:2}" >&2; }
die() { printf '[%s] ERROR: %s\n' "$1" "${*:2}" >&2; exit 1; }

# Directory of one service's runtime files (created on demand).
run_dir() { mkdir -p "$CAIRN_RUN/$1" && printf '%s\n' "$CAIRN_RUN/$1"; }
pid_file() { printf '%s\n' "$CAIRN_RUN/$1/$1.pid"; }
console_log() { printf '%s\n' "$CAIRN_RUN/$1/console.log"; }

# Install a Debian package when the command it provides is missing.
ensure_cmd() {
  local cmd="$1" pkg="$2"
  command -v "$cmd" >/dev/null && return 0
  # apt/dpkg hold a lock: concurrent service installs take turns here.
  mkdir -p "$CAIRN_CACHE"
  (
    flock 9
    command -v "$cmd" >/dev/null && exit 0
    # Lock fds closed: a daemon the package starts must not inherit them.
    apt-get update -qq 8>&- 9>&- &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null 8>&- 9>&-
  ) 9>"$CAIRN_CACHE/.apt.lock"
}

# JDK used for all JVM services: CAIRN_JAVA_HOME, else the `java` on PATH.
java_home() {
  if [[ -n "${CAIRN_JAVA_HOME:-}" ]]; then
    printf '%s\n' "$CAIRN_JAVA_HOME"
  else
    dirname "$(dirname "$(readlink -f "$(command -v java)")")"
  fi
}

# Fetch group:artifact:version:type with Maven (cached in the local Maven
# repository) and unpack it to $CAIRN_DIST/<dir>. No-op once unpacked.
install_maven_dist() {
  local svc="$1" coords="$2" dir="$3"
  local dest="$CAIRN_DIST/$dir" tmp="$CAIRN_DIST/.tmp-$dir"
  [[ -f "$dest/.cairn-installed" ]] && return 0
  say "$svc" "fetching $coords"
  rm -rf "$tmp" "$dest" && mkdir -p "$tmp"
  mvn -B -q "$MVN_DEPENDENCY_PLUGIN:copy" -Dartifact="$coords" \
    -DoutputDirectory="$tmp" >"$tmp/mvn.log" 2>&1 ||
    { cat "$tmp/mvn.log" >&2; die "$svc" "mvn could not fetch $coords"; }
  unzip -q "$tmp"/*.zip -d "$tmp/x"
  mv "$tmp/x/$dir" "$dest"
  rm -rf "$tmp"
  touch "$dest/.cairn-installed"
}

# True when pid is alive and its command line contains marker (guards against
# a stale pid file whose pid was reused by an unrelated process).
pid_matches() {
  local pid="$1" marker="$2"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$marker"
}

# Pid of a running service, or nothing.
service_pid() {
  local svc="$1" pid
  pid="$(cat "$(pid_file "$svc")" 2>/dev/null || true)"
  pid_matches "$pid" "$("${svc}_marker")" && printf '%s\n' "$pid"
  return 0
}

# True while a process group has a member that is not a zombie.
group_alive() {
  ps -e -o pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'
}

port_open() { (: >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Run a command detached in its own session, stdio to the service's console log.
# Prints the pid (which is also the process group id).
spawn() {
  local svc="$1"
  shift
  setsid "$@" </dev/null >>"$(console_log "$svc")" 2>&1 8>&- 9>&- &
  printf '%s\n' "$!"
}

# Like spawn, for Elasticsearch and OpenSearch, which refuse to run as root.
# When we are root they run in a user namespace where we appear as uid 1000;
# outside it they are still root and keep full access to $CAIRN_CACHE.
spawn_non_root() {
  if ((EUID == 0)); then
    spawn "$1" unshare --map-user=1000 --map-group=1000 "${@:2}"
  else
    spawn "$@"
  fi
}

# Send a signal to the process group of pid (if it leads one) and to pid.
signal_tree() {
  kill -s "$1" -- "-$2" 2>/dev/null || true
  kill -s "$1" "$2" 2>/dev/null || true
}

# Run a command holding the service's lock (fd 8), so that concurrent
# invocations of services.sh take turns on each service (a second `start`
# waits for the first, then finds the service running). The holder's own
# waits are bounded by the timeouts above.
with_lock() {
  local svc="$1"
  (
    exec 8>"$(run_dir "$svc")/.lock"
    flock 8
    "${@:2}"
  )
}

# Poll until "<svc>_healthy" succeeds. Fails after the timeout, or early when
# the launcher's process group (see spawn) is gone and no pid file names a
# live process.
wait_healthy() {
  local svc="$1" group="$2" deadline=$((SECONDS + CAIRN_START_TIMEOUT))
  until "${svc}_healthy"; do
    if ((SECONDS >= deadline)); then
      say "$svc" "not healthy after ${CAIRN_START_TIMEOUT}s"
      return 1
    fi
    if ! group_alive "$group" && [[ -z "$(service_pid "$svc")" ]]; then
      sleep 2 # a daemon that left the group may write its pid file a bit later
      [[ -n "$(service_pid "$svc")" ]] || { say "$svc" "process exited"; return 1; }
    fi
    sleep 1
  done
}

# Print the end of every log a service wrote, for diagnosing a failed start.
show_logs() {
  local svc="$1" f
  for f in "$(console_log "$svc")" "${@:2}"; do
    [[ -s "$f" ]] || continue
    printf '[%s] ---- last lines of %s ----\n' "$svc" "$f" >&2
    tail -n 40 "$f" >&2
  done
}
