# Sourced by the hosted-room tests (tests/fragvote/laptop/test_*.sh; not a
# test itself): the venue in network namespaces made by the test, named from
# $base (each test its own):
#
#   ${base}p phones 10.71.3.2 --+
#                               +-- ${base}r router 10.71.{1,2,3}.1 --- ${base}h hub 10.71.1.2
#   ${base}l laptop 10.71.2.2 --+   (nftables: the laptop is masqueraded behind
#                                    the router's hub side and nothing reaches it;
#                                    the phones reach only the hub)
#
# The laptop's own lab (fragvote lab, prefix $labprefix) hangs off nothing:
# its namespaces are the lab's, entered by the probe.
HOSTED_HUB=10.71.1.2
HOSTED_LAPTOP=10.71.2.2

# hosted_ns NAME: the namespace of a part (h, l, p, r).
hosted_ns() { echo "${base}$1"; }

hosted_up() {
  local h l p r
  h=$(hosted_ns h) l=$(hosted_ns l) p=$(hosted_ns p) r=$(hosted_ns r)
  for ns in "$h" "$l" "$p" "$r"; do ip netns add "$ns" && ip -n "$ns" link set lo up || return 1; done
  local n=1
  for part in h l p; do
    local ns; ns=$(hosted_ns $part)
    ip -n "$r" link add "v$part" type veth peer name wan netns "$ns" || return 1
    ip -n "$r" addr add "10.71.$n.1/24" dev "v$part"
    ip -n "$ns" addr add "10.71.$n.2/24" dev wan
    ip -n "$r" link set "v$part" up
    ip -n "$ns" link set wan up
    ip -n "$ns" route add default via "10.71.$n.1"
    n=$((n + 1))
  done
  ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1
  # The venue: the laptop is behind NAT (masqueraded as the router's hub-side
  # address; nothing may open a connection to it); phones reach the hub only.
  ip netns exec "$r" nft -f - <<'NFT' || return 1
table inet hosted {
  chain relay {
    type filter hook forward priority 0; policy drop;
    ct state established,related accept
    iifname "vl" oifname "vh" accept
    iifname "vp" oifname "vh" accept
  }
  chain nat_out {
    type nat hook postrouting priority 100;
    ip saddr 10.71.2.0/24 oifname "vh" masquerade
  }
}
NFT
}

# hosted_cut / hosted_mend: every packet to and from the laptop dropped (its
# wifi gone: no error, just silence), and back.
hosted_cut() {
  ip netns exec "$(hosted_ns r)" nft -f - <<'NFT'
table inet hosted_cut {
  chain relay { type filter hook forward priority -10; policy accept; iifname "vl" drop; oifname "vl" drop; }
}
NFT
}
hosted_mend() { ip netns exec "$(hosted_ns r)" nft delete table inet hosted_cut; }

# hosted_down: stops what still runs in the namespaces (started by the test), removes them.
hosted_down() {
  local pids="" ns
  for part in h l p r; do
    ns=$(hosted_ns $part)
    pids="$pids $(ip netns pids "$ns" 2>/dev/null)"
  done
  pids=$(echo $pids)
  if [ -n "$pids" ]; then
    kill $pids 2>/dev/null
    sleep 1
    kill -9 $pids 2>/dev/null
  fi
  for part in h l p r; do ip netns del "$(hosted_ns $part)" 2>/dev/null; done
  return 0
}

# hosted_port PID: the TCP port PID listens on in the hub's namespace (serve --port 0).
hosted_port() {
  ip netns exec "$(hosted_ns h)" ss -Hltnp 2>/dev/null | grep "pid=$1," | awk '{n=split($4,a,":"); print a[n]; exit}'
}

# hosted_unreachable NS ADDR PORT: 0 when that connection does not open.
hosted_unreachable() { ! hosted_reach "$@"; }

# hosted_listening PID NS: the listening sockets (TCP and UDP) of PID in namespace NS, one a line.
hosted_listening() { ip netns exec "$2" ss -Hlntup 2>/dev/null | grep "pid=$1,"; }

# hosted_reach NS ADDR PORT: 0 when a TCP connection from NS to ADDR:PORT opens within 2 s.
hosted_reach() {
  ip netns exec "$1" python3 -c 'import socket,sys
s=socket.socket(); s.settimeout(2)
try: s.connect((sys.argv[1], int(sys.argv[2])))
except OSError: sys.exit(1)' "$2" "$3"
}

# hosted_begin NAME BASE: root and the tools checked (else exit 77), the test's $tmp, the venue named from BASE, the
# laptop's lab prefix ($prefix, removed at exit with the namespaces), and
# $H $L $P, the hub's, the laptop's and the phones' namespaces.
hosted_begin() {
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
  for t in nft python3 sqlite3 jq ss; do command -v $t >/dev/null || { echo "SKIP: needs $t"; exit 77; }; done
  fv_tmp "$1"
  base=$2
  prefix=${base}x
  trap 'hosted_down; fv_cleanup' EXIT
  trap 'exit 130' INT TERM
  hosted_up || { echo "could not build the venue's namespaces"; exit 1; }
  H=$(hosted_ns h) L=$(hosted_ns l) P=$(hosted_ns p)
}

# hosted_hub OPTIONS...: serve --prober remote in the hub's namespace, its
# console on fd 7 (a fifo: `echo quit >&7`); sets $hub (pid) and $port, and
# the laptop's lab up (the probe alone measures the same lab afterwards).
hosted_hub() {
  mkfifo "$tmp/hub.in"
  exec 7<>"$tmp/hub.in"
  ip netns exec "$H" "$bin" serve --prober remote --port 0 --bind "$HOSTED_HUB" --db "$tmp/hub.db" \
    --secret hub-presenter-secret --no-qr "$@" <"$tmp/hub.in" >"$tmp/hub.out" 2>&1 &
  hub=$!
  port=""
  for _ in $(seq 100); do port=$(hosted_port $hub); [ -n "$port" ] && break; sleep 0.1; done
  [ -n "$port" ] || { echo "the hub did not listen"; cat "$tmp/hub.out"; exit 1; }
  ip netns exec "$L" env FRAGVOTE_LAB_PREFIX="$prefix" "$bin" lab up >/dev/null || { echo "lab up failed"; exit 1; }
}
