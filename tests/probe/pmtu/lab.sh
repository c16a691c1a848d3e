# Sourced by the PMTU tests: a four-namespace line src - r1 - r2 - dst with
# documentation prefixes, link MTUs given per test, cleaned up on every exit.
#   pmtu_lab_up M1 M2 M3   (src-r1, r1-r2, r2-dst link MTUs)
# Sets NS_SRC NS_R1 NS_R2 NS_DST, DST4 DST6, R1_4 R2_4 R1_6 R2_6, and B: the
# fragvote under test ($FRAGVOTE_BIN). Needs root (CAP_SYS_ADMIN +
# CAP_NET_ADMIN); callers skip (77) otherwise.

B=${FRAGVOTE_BIN:?FRAGVOTE_BIN not set}
PMTU_PREFIX="fvpm$$"
NS_SRC="${PMTU_PREFIX}src" NS_R1="${PMTU_PREFIX}r1" NS_R2="${PMTU_PREFIX}r2" NS_DST="${PMTU_PREFIX}dst"
DST4=203.0.113.2 DST6=2001:db8:3::2 R1_4=192.0.2.1 R2_4=198.51.100.2 R1_6=2001:db8:1::1 R2_6=2001:db8:2::2
PMTU_PIDS=""

pmtu_lab_down() {
  for p in $PMTU_PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  PMTU_PIDS=""
  for ns in "$NS_SRC" "$NS_R1" "$NS_R2" "$NS_DST"; do ip netns del "$ns" 2>/dev/null; done
  return 0
}
trap pmtu_lab_down EXIT
trap 'exit 130' INT TERM

pmtu_need_root() {
  if [ "$(id -u)" -ne 0 ] || ! ip netns add "${PMTU_PREFIX}probe" 2>/dev/null; then
    echo "SKIP: needs root and network namespaces"; exit 77
  fi
  ip netns del "${PMTU_PREFIX}probe"
}

pmtu_ns_init() {
  local ns=$1
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip netns exec "$ns" sysctl -qw net.ipv4.icmp_ratelimit=0 net.ipv4.icmp_ratemask=0 \
    net.ipv4.icmp_msgs_per_sec=1000000 net.ipv4.icmp_msgs_burst=1000000 net.ipv6.icmp.ratelimit=0 \
    net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 net.ipv4.ping_group_range="0 2147483647" \
    net.ipv6.conf.default.forwarding=1 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_dad=0
}

# pmtu_link NS_A IF_A NS_B IF_B MTU
pmtu_link() {
  ip link add "$2" netns "$1" mtu "$5" type veth peer name "$4" netns "$3" mtu "$5"
  for side in "$1 $2" "$3 $4"; do
    set -- $side
    ip netns exec "$1" ethtool -K "$2" tso off gso off gro off tx off >/dev/null 2>&1 || true
    ip -n "$1" link set "$2" up
  done
}

pmtu_lab_up() {
  local m1=$1 m2=$2 m3=$3
  for ns in "$NS_SRC" "$NS_R1" "$NS_R2" "$NS_DST"; do pmtu_ns_init "$ns"; done
  pmtu_link "$NS_SRC" eth0 "$NS_R1" eth0 "$m1"
  pmtu_link "$NS_R1" eth1 "$NS_R2" eth0 "$m2"
  pmtu_link "$NS_R2" eth1 "$NS_DST" eth0 "$m3"
  local ns ifc a4 a6
  while read -r ns ifc a4 a6; do
    ip -n "$ns" addr add "$a4/24" dev "$ifc"
    ip -n "$ns" addr add "$a6/64" dev "$ifc" nodad
  done <<EOF
$NS_SRC eth0 192.0.2.2 2001:db8:1::2
$NS_R1 eth0 192.0.2.1 2001:db8:1::1
$NS_R1 eth1 198.51.100.1 2001:db8:2::1
$NS_R2 eth0 198.51.100.2 2001:db8:2::2
$NS_R2 eth1 203.0.113.1 2001:db8:3::1
$NS_DST eth0 203.0.113.2 2001:db8:3::2
EOF
  ip -n "$NS_SRC" route add default via 192.0.2.1
  ip -n "$NS_SRC" -6 route add default via 2001:db8:1::1
  ip -n "$NS_R1" route add 203.0.113.0/24 via 198.51.100.2
  ip -n "$NS_R1" -6 route add 2001:db8:3::/64 via 2001:db8:2::2
  ip -n "$NS_R2" route add 192.0.2.0/24 via 198.51.100.1
  ip -n "$NS_R2" -6 route add 2001:db8:1::/64 via 2001:db8:2::1
  ip -n "$NS_DST" route add default via 203.0.113.1
  ip -n "$NS_DST" -6 route add default via 2001:db8:3::1
}

# Makes router namespace $1 ICMP-silent: it drops the Frag Needed / Packet
# Too Big it would send (a black-hole router).
pmtu_icmp_silent() {
  ip netns exec "$1" nft -f "$(dirname "${BASH_SOURCE[0]}")/icmp_silent.nft"
}

# Runs a command in the src namespace as nobody (uid/gid 65534, no groups).
as_nobody_in_src() {
  ip netns exec "$NS_SRC" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"
}

# A tiny assertion kit for these shell tests.
PMTU_FAILS=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; PMTU_FAILS=$((PMTU_FAILS + 1)); }
expect_eq() { if [ "$1" = "$2" ]; then pass "$3 ($1)"; else fail "$3: got '$1', expected '$2'"; fi; }
pmtu_summary() { echo "$PMTU_FAILS failed"; [ "$PMTU_FAILS" -eq 0 ]; }
