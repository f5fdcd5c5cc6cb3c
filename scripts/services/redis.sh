# shellcheck shell=bash
# Redis 7 from Debian's redis-server package: a private instance, not the
# system service. Append-only file on, so a restarted Redis keeps its jobs.

REDIS_PORT="${CAIRN_REDIS_PORT:-6390}"

redis_url() { printf 'redis://127.0.0.1:%s\n' "$REDIS_PORT"; }
redis_marker() { printf 'redis-server 127.0.0.1:%s\n' "$REDIS_PORT"; }
redis_logs() { printf '%s\n' "$CAIRN_RUN/redis/redis.log"; }

redis_install() { ensure_cmd redis-server redis-server; }

redis_launch() {
  local dir
  dir="$(run_dir redis)"
  mkdir -p "$dir/data"
  spawn redis redis-server --port "$REDIS_PORT" --bind 127.0.0.1 \
    --dir "$dir/data" --daemonize yes --pidfile "$(pid_file redis)" \
    --logfile "$(redis_logs)" --save '' --appendonly yes
}

redis_healthy() {
  [[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" == PONG ]]
}
