# shellcheck shell=bash
# The cluster check's infrastructure (`scripts/services.sh cluster <start|stop|status> …`):
# three OpenSearch nodes forming one cluster on loopback, each with its own ports, data and
# logs under $CAIRN_RUN/osnode<N>, and HAProxy (Debian's package) in front of the API
# replicas and of the engine nodes, configured by deploy/haproxy/haproxy.cfg. Redis is the
# usual service, on the cluster's own port and run folder (see services.sh). The API and
# worker processes are Node processes that scripts/cluster-check.ts starts and kills itself.
#
# Environment (defaults in brackets):
#   CAIRN_CLUSTER_HTTP_BASE [9260]       node N answers HTTP on base+N (9261-9263)
#   CAIRN_CLUSTER_TRANSPORT_BASE [9360]  node N's transport port is base+N (9361-9363)
#   CAIRN_CLUSTER_JAVA_OPTS [-Xms512m -Xmx512m -XX:TieredStopAtLevel=1]  heap of each node
#   CAIRN_CLUSTER_LB_PORT [8090]         the balancer's API address; API replica N on port+N
#   CAIRN_CLUSTER_ENGINE_LB_PORT [9260]  the balancer's engine address (APIs and workers use it)

CLUSTER_HTTP_BASE="${CAIRN_CLUSTER_HTTP_BASE:-9260}"
CLUSTER_TRANSPORT_BASE="${CAIRN_CLUSTER_TRANSPORT_BASE:-9360}"
CLUSTER_JAVA_OPTS="${CAIRN_CLUSTER_JAVA_OPTS:--Xms512m -Xmx512m -XX:TieredStopAtLevel=1}"
CLUSTER_LB_PORT="${CAIRN_CLUSTER_LB_PORT:-8090}"
CLUSTER_ENGINE_LB_PORT="${CAIRN_CLUSTER_ENGINE_LB_PORT:-9260}"
CLUSTER_NAME="cairn-cluster-check"
CLUSTER_NODES=(1 2 3)

cluster_http_port() { printf '%s\n' "$((CLUSTER_HTTP_BASE + $1))"; }
cluster_transport_port() { printf '%s\n' "$((CLUSTER_TRANSPORT_BASE + $1))"; }

# One node of the cluster: every node is cluster-manager eligible and holds data.
osnode_launch() {
  local n="$1" svc="osnode$1" seeds="" i
  for i in "${CLUSTER_NODES[@]}"; do seeds+="${seeds:+,}127.0.0.1:$(cluster_transport_port "$i")"; done
  OPENSEARCH_JAVA_HOME="$(java_home)" \
    OPENSEARCH_JAVA_OPTS="$CLUSTER_JAVA_OPTS" \
    OPENSEARCH_TMPDIR="$(run_dir "$svc")/tmp" \
    search_launch "$svc" "opensearch-$OPENSEARCH_VERSION" opensearch \
    "$(cluster_http_port "$n")" "$(cluster_transport_port "$n")" \
    -Ecluster.name="$CLUSTER_NAME" -Enode.name="node-$n" \
    -Ediscovery.seed_hosts="$seeds" \
    -Ecluster.initial_cluster_manager_nodes=node-1,node-2,node-3
}

# Healthy: the node answers and sees an elected cluster manager (it has joined the cluster).
osnode_healthy() { search_healthy "$(cluster_http_port "$1")"; }
osnode_url() { printf 'http://127.0.0.1:%s\n' "$(cluster_http_port "$1")"; }
osnode_logs() { printf '%s\n' "$CAIRN_RUN/osnode$1/logs/$CLUSTER_NAME.log"; }

# The functions services.sh calls, per node (osnode1_url, osnode2_launch, …).
for n in "${CLUSTER_NODES[@]}"; do
  eval "osnode${n}_url() { osnode_url $n; }
osnode${n}_marker() { printf '%s\n' \"-Enode.name=node-$n\"; }
osnode${n}_logs() { osnode_logs $n; }
osnode${n}_healthy() { osnode_healthy $n; }
osnode${n}_install() { opensearch_install; }
osnode${n}_launch() { osnode_launch $n; }"
done

balancer_url() { printf 'http://127.0.0.1:%s\n' "$CLUSTER_LB_PORT"; }
balancer_config() { printf '%s\n' "$CAIRN_ROOT/deploy/haproxy/haproxy.cfg"; }
balancer_marker() { printf '%s\n' "$(pid_file balancer)"; }
balancer_logs() { :; }
balancer_install() { ensure_cmd haproxy haproxy; }
balancer_healthy() { curl -sf -o /dev/null "$(balancer_url)/lb-health"; }

balancer_launch() {
  run_dir balancer >/dev/null
  CAIRN_LB_BIND="127.0.0.1:$CLUSTER_LB_PORT" \
    CAIRN_LB_ENGINE_BIND="127.0.0.1:$CLUSTER_ENGINE_LB_PORT" \
    CAIRN_API_1="127.0.0.1:$((CLUSTER_LB_PORT + 1))" \
    CAIRN_API_2="127.0.0.1:$((CLUSTER_LB_PORT + 2))" \
    CAIRN_ENGINE_1="127.0.0.1:$(cluster_http_port 1)" \
    CAIRN_ENGINE_2="127.0.0.1:$(cluster_http_port 2)" \
    CAIRN_ENGINE_3="127.0.0.1:$(cluster_http_port 3)" \
    CAIRN_LB_ERRORS="$CAIRN_ROOT/deploy/haproxy/errors" \
    spawn balancer haproxy -D -p "$(pid_file balancer)" -f "$(balancer_config)"
}
