#!/usr/bin/env bash
# `fragvote pmtu discover` as an unprivileged user in the lab's src namespace:
# 1-RTT discovery finds the bottleneck on labs with different link MTUs (the
# configured topology is the truth), with ICMP echo (ping sockets) and with
# `fragvote pmtu respond` on dst (also unprivileged), in one round trip; the
# sequential search agrees in more; the probes leave whole with DF set
# (pcap); black holes, silence, closed ports and forbidden ping sockets give
# their sentence and exit code.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lab.sh"
pmtu_need_root
PORT=7007

field() { grep -o "$1 [0-9]*" | head -1 | awk '{print $NF}'; }

# check_lab M1 M2 M3 EXPECTED: every target form finds EXPECTED in one round trip.
check_lab() {
  local m1=$1 m2=$2 m3=$3 want=$4
  pmtu_lab_up "$m1" "$m2" "$m3"
  ip netns exec "$NS_DST" setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$B" pmtu respond --seconds 120 $PORT 2>/dev/null & PMTU_PIDS="$PMTU_PIDS $!"
  sleep 0.2
  for t in $DST4 $DST6 "$DST4:$PORT" "[$DST6]:$PORT"; do
    out=$(as_nobody_in_src "$B" pmtu discover "$t"); rc=$?
    expect_eq "$rc" 0 "lab $m1/$m2/$m3: discover $t exits 0"
    expect_eq "$(echo "$out" | field 'path MTU')" "$want" "lab $m1/$m2/$m3: 1-RTT path MTU to $t"
    expect_eq "$(echo "$out" | field 'round trips')" 1 "lab $m1/$m2/$m3: one round trip to $t"
    case "$out" in *"ICMP-silent"*) fail "answering path called ICMP-silent";; *) pass "no silence claimed";; esac
    ip netns exec "$NS_SRC" "$B" pmtu flush >/dev/null
    out=$(as_nobody_in_src "$B" pmtu discover --sequential --timeout 300 "$t"); rc=$?
    expect_eq "$(echo "$out" | field 'path MTU')" "$want" "lab $m1/$m2/$m3: sequential path MTU to $t"
    rt=$(echo "$out" | field 'round trips')
    if [ "${rt:-0}" -gt 1 ] || [ "$want" = "$m1" ]; then pass "sequential took $rt round trips"; else fail "sequential took '$rt' round trips"; fi
    ip netns exec "$NS_SRC" "$B" pmtu flush >/dev/null
  done
  pmtu_lab_down
}

check_lab 1500 1280 1500 1280
check_lab 9000 9000 1400 1400
check_lab 9000 9000 9000 9000
check_lab 1500 1500 1500 1500

# Ground truth on the wire: all common sizes leave at once, whole, with DF.
pmtu_lab_up 9000 9000 1400
pcap=$(mktemp /tmp/fvpm-XXXXXX.pcap)
ip netns exec "$NS_SRC" tcpdump -Z root --immediate-mode -i eth0 -U -w "$pcap" icmp 2>/dev/null & tcpd=$!
PMTU_PIDS="$PMTU_PIDS $tcpd"
sleep 0.5
as_nobody_in_src "$B" pmtu discover $DST4 >/dev/null
sleep 0.3; kill $tcpd; wait $tcpd 2>/dev/null
# tcpdump -v prints the IP header line, then the ICMP line of each request.
reqs=$(tcpdump -nvr "$pcap" 2>/dev/null | awk '/echo request/ && prev ~ /^[0-9]/ {
  df = (prev ~ /flags \[DF\]/) ? "DF" : "noDF"; n = split(prev, w, " "); sub(/\)/, "", w[n]);
  printf "%s:%s ", w[n], df } { prev = $0 }')
expect_eq "$(echo $reqs | wc -w)" 6 "six echo requests on the wire"
expect_eq "$reqs" "1280:DF 1360:DF 1400:DF 1500:DF 8000:DF 9000:DF " "each left whole with DF, all sizes"
frags=$(tcpdump -nvr "$pcap" 2>/dev/null | grep -c 'flags \[+\]')
expect_eq "$frags" 0 "no fragments on the wire"
rm -f "$pcap"

# An ICMP-silent bottleneck (r1 drops its Frag Needed / Packet Too Big):
# 1-RTT still answers from the acknowledgements; sequential pays a timeout
# per lost probe.
pmtu_icmp_silent "$NS_R2"
for t in $DST4 $DST6; do
  out=$(as_nobody_in_src "$B" pmtu discover --timeout 300 "$t"); rc=$?
  expect_eq "$(echo "$out" | field 'path MTU')" 1400 "silent path: 1-RTT to $t still finds 1400"
  case "$out" in *"router reports"*) fail "silent path reported an MTU";; *) pass "silent path: no MTU reported";; esac
  case "$out" in *"ICMP-silent"*) pass "silent path: says so";; *) fail "silent path not named: $out";; esac
  out=$(as_nobody_in_src "$B" pmtu discover --sequential --timeout 300 "$t")
  expect_eq "$(echo "$out" | field 'path MTU')" 1400 "silent path: sequential to $t finds 1400"
done

# Errors.
err=$(as_nobody_in_src "$B" pmtu discover --timeout 300 198.51.100.99 2>&1); rc=$?
expect_eq "$rc" 6 "nobody home: exit 6"
case "$err" in *"no answer from 198.51.100.99 within 300 ms"*) pass "timeout sentence";; *) fail "timeout error: $err";; esac
err=$(as_nobody_in_src "$B" pmtu discover $DST4:7999 2>&1); rc=$?
expect_eq "$rc" 1 "closed port: exit 1"
case "$err" in *"port unreachable"*) pass "closed-port sentence";; *) fail "closed-port error: $err";; esac
ip netns exec "$NS_SRC" sysctl -qw net.ipv4.ping_group_range="1 0"
err=$(as_nobody_in_src "$B" pmtu discover $DST4 2>&1); rc=$?
expect_eq "$rc" 3 "ping sockets forbidden: exit 3"
case "$err" in *ping_group_range*) pass "names ping_group_range";; *) fail "ping error: $err";; esac
"$B" pmtu discover >/dev/null 2>&1; expect_eq "$?" 2 "discover without host is a usage error"
"$B" pmtu discover 192.0.2.1:99999 >/dev/null 2>&1; expect_eq "$?" 2 "bad port is a usage error"
"$B" pmtu discover --timeout 0 192.0.2.1 >/dev/null 2>&1; expect_eq "$?" 2 "bad timeout is a usage error"

pmtu_summary
