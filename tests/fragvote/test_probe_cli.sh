#!/usr/bin/env bash
# fragvote lab / fragvote probe from the command line: help and misuse, a lab
# with its own prefix, one test as JSON, the article's reader challenge run as
# three separate processes (the PMTU cache outlives them), a deck, and -a to
# loopback. Needs root (namespaces, raw sockets); only the lab and loopback
# are ever probed.
set -u
bin=${FRAGVOTE_BIN:?FRAGVOTE_BIN not set}
src=${FRAGVOTE_SRC:?FRAGVOTE_SRC not set}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
jqc() { jq -e "$@" >/dev/null 2>&1; }

if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (network namespaces, raw sockets)"; exit 77; fi
for t in ip jq nft ethtool; do
  command -v $t >/dev/null || { echo "SKIP: needs $t (scripts/apt-packages.txt)"; exit 77; }
done
P=fvs$$
tmp=$(mktemp -d)
trap '"$bin" lab down --prefix "$P" >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM

# --- help and misuse ---
"$bin" lab --help >"$tmp/out" 2>"$tmp/err"; rc=$?
check "lab --help on stdout, exit 0" test $rc -eq 0 -a -s "$tmp/out" -a ! -s "$tmp/err"
"$bin" probe --help >"$tmp/out" 2>"$tmp/err"; rc=$?
check "probe --help on stdout, exit 0" test $rc -eq 0 -a -s "$tmp/out" -a ! -s "$tmp/err"
for args in "lab" "lab sideways" "lab up --mtu 1500,900,1500" "lab up --reassemble r3" "lab status --mtu 1500,1500,1500" \
            "probe -p udp5" "probe -p icmp" "probe -p icmp6 -s 47" "probe -f maybe" "probe -s 10" "probe --ttl 0" "probe -a [::1" "probe --jobs 99" "probe extra"; do
  "$bin" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
  check "misuse '$args': exit 2, message on stderr" test $rc -eq 2 -a -s "$tmp/err" -a ! -s "$tmp/out"
done

# --- lab lifecycle ---
"$bin" lab status --prefix "$P" >"$tmp/out" 2>&1; rc=$?
check "status of a missing lab: exit 1" test $rc -eq 1
"$bin" lab up --prefix "$P" >"$tmp/out" 2>&1; rc=$?
check "lab up: exit 0" test $rc -eq 0
check "lab up made four namespaces" test "$(ip netns list 2>/dev/null | grep -c "^$P-")" -eq 4
"$bin" lab status --prefix "$P" >"$tmp/out" 2>&1; rc=$?
check "lab status: exit 0, shows the 1280 link" grep -q "mtu 1280" "$tmp/out"

# --- the witness in dst, the lab's default (docs/PROBE.md) ---
"$bin" probe --prefix "$P" -p udp4 -f dont -s 1400 --flush --json >"$tmp/w.json" 2>"$tmp/err"; rc=$?
check "probe in the lab: the witness in dst reports, TTL 64, the merged answer names it" \
  jqc '.witness.heard == true and .spec.ttl == 64 and .fragmented.answer == "yes" and .fragmenter == "router"
         and .fragmented.observed_at == "far end" and (.evidence | test("arrived at dst in 2 fragments"))' "$tmp/w.json"
"$bin" probe --prefix "$P" -p udp4 -f dont -s 1400 --flush >"$tmp/w.txt" 2>"$tmp/err"
check "probe in the lab: the text says observed (far end)" grep -q "observed (far end)" "$tmp/w.txt"
"$bin" probe --prefix "$P" --witness 203.0.113.2:9 >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--witness HOST:PORT without a key: exit 2, names --witness-key" \
  test $rc -eq 2 -a ! -s "$tmp/out" -a "$(grep -c 'witness-key' "$tmp/err")" -eq 1
"$bin" witness --help >"$tmp/out" 2>"$tmp/err"; rc=$?
check "witness --help on stdout, exit 0" test $rc -eq 0 -a -s "$tmp/out" -a ! -s "$tmp/err"
for args in "" "--key xyz 9000" "70000" "9000 9001" "--rate 0 9000"; do
  "$bin" witness $args >"$tmp/out" 2>"$tmp/err"; rc=$?
  check "witness misuse '$args': exit 2, message on stderr" test $rc -eq 2 -a -s "$tmp/err" -a ! -s "$tmp/out"
done

# --- one test as JSON ---
"$bin" probe --prefix "$P" -p udp4 -f do -s 1400 --flush --no-witness --json >"$tmp/do.json" 2>"$tmp/err"; rc=$?
check "probe --json: exit 0, valid JSON" test $rc -eq 0 -a -s "$tmp/do.json"
check "probe --json: parses" jqc . "$tmp/do.json"
check "udp4 do 1400: sent, DF observed, r1 answered with Frag Needed 1280" \
  jqc '.sent.answer == "yes" and .df.answer == "yes" and .df.basis == "observed" and .hop_name == "r1"
         and .icmp.type == 3 and .icmp.code == 4 and .icmp.mtu == 1280 and .spec.ttl == 2 and .observer == "raw"' \
  "$tmp/do.json"

# --- the path hop by hop (issue 20): in the JSON, and as the terminal's hop table ---
check "udp4 do 1400 --json: the path: r1 dropped it with Frag Needed 1280, the r1-r2 link 1280 from the lab" \
  jqc '.path.v == 1 and .path.view == "full" and (.path.nodes | map(.name)) == ["src","r1","r2","dst"]
         and .path.links[1] == {"mtu": 1280, "mtu_from": "lab"} and .path.sent.pieces == [1400] and .path.sent.df == true
         and (.path.events | length) == 1 and .path.events[0].node == 1 and .path.events[0].what == "dropped"
         and .path.events[0].icmp == "frag_needed" and .path.events[0].mtu == 1280 and .path.events[0].seen_by == "icmp"
         and .path.events[0].quote.len == 1400' "$tmp/do.json"
check "probe in the lab with its witness: the path ends with the arrival at dst in 1276 + 144" \
  jqc '.path.events[-1] | .node == 3 and .what == "arrived" and .pieces == [1276, 144] and .seen_by == "witness"' "$tmp/w.json"
"$bin" probe --prefix "$P" -p udp4 -f dont -s 1400 --flush --no-witness >"$tmp/hops.txt" 2>"$tmp/err"; rc=$?
check "probe (text): a hop table, one row per node, with its MTU" \
  test $rc -eq 0 -a "$(grep -cE '^ +[0-3] +(src|r1|r2|dst) ' "$tmp/hops.txt")" -eq 4
check "probe (text): r1's row says it fragmented into 1276 + 144, shown by ICMP" \
  grep -qE '^ +1 +r1 +192\.0\.2\.2 +1280 +fragmented into 2 pieces: 1276 \+ 144 .*\[icmp\]' "$tmp/hops.txt"
check "probe (text): r2's row has the Time Exceeded quoting the first fragment" \
  grep -qE '^ +2 +r2 +198\.51\.100\.2 +1500 +Time Exceeded quoting a first fragment of 1276 bytes \[icmp\]' "$tmp/hops.txt"

# --- ICMP echo (what `ping -M do -s 1372` sends), as root: a raw socket ---
"$bin" probe --prefix "$P" -p icmp4 -f do -s 1400 --flush --json >"$tmp/ping.json" 2>"$tmp/err"; rc=$?
check "icmp4 do 1400: exit 0, raw socket, DF observed, r1 answered with Frag Needed 1280" \
  jqc '.spec.proto == "icmp4" and .socket == "raw" and .spec.port > 0 and .sent.answer == "yes"
         and .df.answer == "yes" and .df.basis == "observed" and .hop_name == "r1" and .icmp.mtu == 1280' "$tmp/ping.json"
"$bin" probe --prefix "$P" -p icmp6 -f dont -s 3000 --flush >"$tmp/ping6.txt" 2>"$tmp/err"; rc=$?
check "icmp6 dont 3000: exit 0, the host fragments it, the line names the echo id" \
  grep -q "echo id [0-9]* (raw socket)" "$tmp/ping6.txt"
check "icmp6 dont 3000: fragmented by the host" grep -qE "^  by +host" "$tmp/ping6.txt"

# An echo request that reaches dst (TTL 64) is answered by an Echo Reply:
# seen by the raw observer as root and on the ping socket as nobody.
"$bin" probe --prefix "$P" -p icmp4 -f do -s 1200 --ttl 64 --flush --json >"$tmp/reply.json" 2>"$tmp/err"
check "icmp4 do 1200 to dst: sent observed from the Echo Reply, not fragmented (DF=1)" \
  jqc '.sent.basis == "observed" and .icmp == null and .fragmented.answer == "no" and .fragmented.basis == "inferred"
         and (.fragmented.why | test("target answered"))' "$tmp/reply.json"
ip netns exec "$P-src" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
  "$bin" probe -p icmp6 -s 1200 --ttl 64 -a 2001:db8:3::2 --json >"$tmp/reply6.json" 2>"$tmp/err"
check "icmp6 1200 to dst as nobody: ping socket, recverr, sent observed from the Echo Reply" \
  jqc '.socket == "ping" and .observer == "recverr" and .sent.basis == "observed"
         and (.sent.why | test("Echo Reply"))' "$tmp/reply6.json"

# Ping sockets refused (the kernel's default range "1 0"): exit 3, and the sysctl that allows them.
ip netns exec "$P-src" sysctl -qw net.ipv4.ping_group_range="1 0"
ip netns exec "$P-src" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
  "$bin" probe -p icmp4 --ttl 64 -a 203.0.113.2 >"$tmp/out" 2>"$tmp/err"; rc=$?
check "icmp4 as nobody without ping sockets: exit 3, names net.ipv4.ping_group_range" \
  test $rc -eq 3 -a ! -s "$tmp/out" -a "$(grep -c 'ping_group_range' "$tmp/err")" -eq 1
ip netns exec "$P-src" sysctl -qw net.ipv4.ping_group_range="0 2147483647"

# --- the reader challenge, as the article runs it: three separate commands ---
"$bin" probe --prefix "$P" --flush -p udp4 -f default --json >"$tmp/c1.json" 2>/dev/null
"$bin" probe --prefix "$P" -p tcp4 -f default --json >"$tmp/c2.json" 2>/dev/null
"$bin" probe --prefix "$P" -p udp4 -f default --json >"$tmp/c3.json" 2>/dev/null
f1=$(jq -r .fragmented.answer "$tmp/c1.json"); f3=$(jq -r .fragmented.answer "$tmp/c3.json")
check "reader challenge: first and third answers differ ($f1 / $f3)" test -n "$f1" -a "$f1" != "$f3"
check "reader challenge: the third explanation names the PMTU cache" \
  jqc '.evidence | test("PMTU cache")' "$tmp/c3.json"

# --- a whole deck ---
"$bin" probe --prefix "$P" --deck "$src/decks/fragquiz.json" >"$tmp/deck.txt" 2>"$tmp/progress"; rc=$?
check "probe --deck: exit 0" test $rc -eq 0
check "probe --deck: one row per test" test "$(grep -cE '^[0-9]+ +(udp|tcp|icmp)[46] ' "$tmp/deck.txt")" -eq "$(jq '.tests | length' "$src/decks/fragquiz.json")"
check "probe --deck: progress on stderr" grep -q "\[1/" "$tmp/progress"
"$bin" probe --prefix "$P" --deck "$src/decks/fragquiz.json" --json >"$tmp/deck.json" 2>/dev/null
check "probe --deck --json: every test answered" jqc '[.results[] | select(.error)] | length == 0' "$tmp/deck.json"

# --- -a HOST:PORT with fragquiz's spelling, to loopback only ---
"$bin" probe -p udp4 -f default -s 1400 --ttl 64 -a 127.0.0.1:9 --json >"$tmp/lo.json" 2>"$tmp/err"; rc=$?
check "-a 127.0.0.1:9: exit 0, loopback answers port unreachable about the whole packet" \
  jqc '.spec.host == "127.0.0.1" and .spec.port == 9 and .icmp.type == 3 and .icmp.code == 3
         and .fragmented.answer == "no"' "$tmp/lo.json"
check "-a 127.0.0.1:9: the path is the host, unseen hops, and the target, which answered" \
  jqc '(.path.nodes | map(.role)) == ["host","gap","target"] and .path.links[0].mtu_from == "device"
         and .path.events[-1].what == "arrived" and .path.events[-1].icmp == "port_unreachable"' "$tmp/lo.json"

"$bin" probe -p udp6 -f do -s 1400 --ttl 64 -a '[::1]:9' --json >"$tmp/lo6.json" 2>"$tmp/err"; rc=$?
check "-a [::1]:9: IPv6 literal in brackets, port unreachable from ::1" \
  jqc '.spec.host == "::1" and .spec.port == 9 and .icmp.type == 1 and .sent.answer == "yes"' "$tmp/lo6.json"

# --- down ---
"$bin" lab down --prefix "$P" >"$tmp/out" 2>&1; rc=$?
check "lab down: exit 0, no namespace left" test $rc -eq 0 -a "$(ip netns list 2>/dev/null | grep -c "^$P-")" -eq 0
"$bin" lab status --prefix "$P" >/dev/null 2>&1; rc=$?
check "status after down: exit 1" test $rc -eq 1

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
