# Keycloak 26 (Quarkus distribution) from Maven Central in development mode
# on the machine's JDK 17 (26.5.6 accepts it). The database is in-memory H2
# (dev-mem): every start begins empty and imports the realms in
# test/fixtures/keycloak/*.json afresh, so tests always see the same state.
# Standard token exchange (v2) is on by default since 26.2; the legacy
# token-exchange feature stays off.

KEYCLOAK_VERSION="${KEYCLOAK_VERSION:-26.5.6}"
KEYCLOAK_HTTP_PORT="${CAIRN_KEYCLOAK_HTTP_PORT:-8180}"
KEYCLOAK_MANAGEMENT_PORT="${CAIRN_KEYCLOAK_MANAGEMENT_PORT:-9180}"
KEYCLOAK_ADMIN_USERNAME="${KEYCLOAK_ADMIN_USERNAME:-admin}"
KEYCLOAK_ADMIN_PASSWORD="${KEYCLOAK_ADMIN_PASSWORD:-admin}"
KEYCLOAK_FIXTURES="$CAIRN_ROOT/test/fixtures/keycloak"
KEYCLOAK_HOME="$CAIRN_DIST/keycloak-$KEYCLOAK_VERSION"

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

keycloak_launch() {
  local import="$KEYCLOAK_HOME/data/import" pid
  rm -rf "$import" && mkdir -p "$import"
  keycloak_fixture_files | xargs -r -d '\n' cp -t "$import"
  pid="$(JAVA_HOME="$(java_home)" \
    KC_BOOTSTRAP_ADMIN_USERNAME="$KEYCLOAK_ADMIN_USERNAME" \
    KC_BOOTSTRAP_ADMIN_PASSWORD="$KEYCLOAK_ADMIN_PASSWORD" \
    spawn keycloak "$KEYCLOAK_HOME/bin/kc.sh" start-dev \
    --http-host 127.0.0.1 --http-port "$KEYCLOAK_HTTP_PORT" \
    --http-management-port "$KEYCLOAK_MANAGEMENT_PORT" \
    --hostname "$(keycloak_url)" --db dev-mem --import-realm)"
  printf '%s\n' "$pid" >"$(pid_file keycloak)"
  printf '%s\n' "$pid"
}

# Healthy once the master realm and every imported realm publish their
# OpenID configuration.
keycloak_healthy() {
  local realm
  for realm in master $(keycloak_realms); do
    curl -sf -o /dev/null "$(keycloak_url)/realms/$realm/.well-known/openid-configuration" || return 1
  done
}
