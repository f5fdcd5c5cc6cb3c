# shellcheck shell=bash
# Keycloak 26 (Quarkus distribution) from Maven Central in development mode
# on the machine's JDK 17 (26.5.6 accepts it). Standard token exchange (v2)
# is on by default since 26.2; the legacy token-exchange feature stays off.
#
# Each run folder (CAIRN_RUN) keeps its own H2 database, so two sets of
# instances never share or wipe each other's. Every start begins from the
# same pristine H2 database: the master realm,
# the bootstrap admin and the realms of test/fixtures/keycloak/*.json. The
# first start for a given set of fixtures imports them into an empty
# database, stops Keycloak and keeps a copy of that database; later starts
# copy it back instead of re-creating the schema and re-importing, which
# takes about a third of the CPU time.

KEYCLOAK_VERSION="${KEYCLOAK_VERSION:-26.5.6}"
KEYCLOAK_HTTP_PORT="${CAIRN_KEYCLOAK_HTTP_PORT:-8180}"
KEYCLOAK_MANAGEMENT_PORT="${CAIRN_KEYCLOAK_MANAGEMENT_PORT:-9180}"
KEYCLOAK_ADMIN_USERNAME="${KEYCLOAK_ADMIN_USERNAME:-admin}"
KEYCLOAK_ADMIN_PASSWORD="${KEYCLOAK_ADMIN_PASSWORD:-admin}"
KEYCLOAK_FIXTURES="$CAIRN_ROOT/test/fixtures/keycloak"
KEYCLOAK_HOME="$CAIRN_DIST/keycloak-$KEYCLOAK_VERSION"
# --db dev-file keeps its H2 files under ${kc.db-url-path}/data/h2 (the distribution folder
# by default); kc.db-url-path moves them into this run's folder.
KEYCLOAK_DB_BASE="$CAIRN_RUN/keycloak"
KEYCLOAK_DB="$KEYCLOAK_DB_BASE/data/h2"

keycloak_url() { printf 'http://127.0.0.1:%s\n' "$KEYCLOAK_HTTP_PORT"; }
keycloak_marker() { printf '%s\n' "$KEYCLOAK_HOME/"; }
keycloak_logs() { :; } # everything goes to the console log

keycloak_install() {
  install_maven_dist keycloak \
    "org.keycloak:keycloak-quarkus-dist:$KEYCLOAK_VERSION:zip" \
    "keycloak-$KEYCLOAK_VERSION"
}

# Realm files to import (none when the fixtures folder has no JSON).
keycloak_fixture_files() {
  compgen -G "$KEYCLOAK_FIXTURES/*.json" || true
}

# Names of the realms the fixtures define, one a line.
keycloak_realms() {
  local files
  mapfile -t files < <(keycloak_fixture_files)
  ((${#files[@]})) || return 0
  node -e 'for (const f of process.argv.slice(1)) console.log(require(f).realm)' \
    "${files[@]}" | sort -u
}

# Folder of the pristine database for the current version, admin and fixtures.
keycloak_pristine_dir() {
  local sum f
  sum="$(
    printf '%s\n' "$KEYCLOAK_VERSION" "$KEYCLOAK_ADMIN_USERNAME" "$KEYCLOAK_ADMIN_PASSWORD"
    keycloak_fixture_files | while read -r f; do basename "$f" && cat "$f"; done
  )"
  printf '%s/pristine-db-%s\n' "$(run_dir keycloak)" "$(sha256sum <<<"$sum" | cut -c1-16)"
}

# Start kc.sh start-dev with the given extra options; prints its pid. JIT
# limited to C1 by default: Keycloak then starts with a third less CPU time.
keycloak_spawn() {
  local pid
  pid="$(JAVA_HOME="$(java_home)" \
    JAVA_OPTS_APPEND="${JAVA_OPTS_APPEND:--XX:TieredStopAtLevel=1} -Dkc.db-url-path=$KEYCLOAK_DB_BASE" \
    KC_BOOTSTRAP_ADMIN_USERNAME="$KEYCLOAK_ADMIN_USERNAME" \
    KC_BOOTSTRAP_ADMIN_PASSWORD="$KEYCLOAK_ADMIN_PASSWORD" \
    spawn keycloak "$KEYCLOAK_HOME/bin/kc.sh" start-dev \
    --http-host 127.0.0.1 --http-port "$KEYCLOAK_HTTP_PORT" \
    --http-management-port "$KEYCLOAK_MANAGEMENT_PORT" \
    --hostname "$(keycloak_url)" --db dev-file "$@")"
  printf '%s\n' "$pid" >"$(pid_file keycloak)"
  printf '%s\n' "$pid"
}

# Import the fixtures into an empty database, then stop cleanly and keep the
# database files as the pristine copy.
# The import folder is the distribution's (Keycloak reads realms only from there), so two
# runs creating their pristine copies at once take turns on a lock.
keycloak_make_pristine() {
  local pristine="$1" import="$KEYCLOAK_HOME/data/import" pid
  say keycloak "creating the pristine database (first start with these fixtures)"
  exec 7>"$KEYCLOAK_HOME/.import.lock" && flock 7 &&
    rm -rf "$import" "$KEYCLOAK_DB" "$(run_dir keycloak)"/pristine-db-* && mkdir -p "$import" &&
    keycloak_fixture_files | xargs -r -d '\n' cp -t "$import" &&
    pid="$(keycloak_spawn --import-realm)" &&
    wait_healthy keycloak "$pid" &&
    stop_one keycloak &&
    cp -r "$KEYCLOAK_DB" "$pristine.tmp" && mv "$pristine.tmp" "$pristine" &&
    rm -rf "$import" && exec 7>&-
}

keycloak_launch() {
  local pristine
  pristine="$(keycloak_pristine_dir)"
  [[ -d "$pristine" ]] || keycloak_make_pristine "$pristine" || return 1
  rm -rf "$KEYCLOAK_DB" && mkdir -p "$(dirname "$KEYCLOAK_DB")" &&
    cp -r "$pristine" "$KEYCLOAK_DB" && keycloak_spawn
}

# Healthy once the master realm and every imported realm publish their
# OpenID configuration.
keycloak_healthy() {
  local realm
  for realm in master $(keycloak_realms); do
    curl -sf -o /dev/null "$(keycloak_url)/realms/$realm/.well-known/openid-configuration" || return 1
  done
}
