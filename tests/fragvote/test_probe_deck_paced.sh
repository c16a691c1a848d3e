#!/usr/bin/env bash
# Issue 34, pacing: `probe --deck` of the built-in deck (decks/fragquiz.json)
# on a lab whose routers both keep Linux's default ICMP rate limits
# (`lab up --ratelimit r1 --ratelimit r2`), their budget spent first by 60
# TTL-limited datagrams per family, answers every test as it does on the kind
# lab: the same sent? / DF? / fragmented? / by whom, none unknown. Then TTL
# discovery on a path never seen (only the target address, from inside src)
# whose budget was spent finds the path and says "rate-limited", and on a lab
# whose two routers send no Time Exceeded says "silent", not rate-limited.
# Prints the time each run costs. Needs root (namespaces, raw sockets, nft).
set -u
bin=${FRAGVOTE_BIN:?FRAGVOTE_BIN not set}
src=${FRAGVOTE_SRC:?FRAGVOTE_SRC not set}
pass=0 fail=0
check() { local what=$1; shift; if "$@"; then pass=$((pass + 1)); echo "ok   $what"; else fail=$((fail + 1)); echo "FAIL $what"; fi; }

if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (network namespaces, raw sockets)"; exit 77; fi
for t in ip jq nft python3; do
  command -v $t >/dev/null || { echo "SKIP: needs $t (scripts/apt-packages.txt)"; exit 77; }
done
K=fvk$$ R=fvr$$ S=fvn$$
tmp=$(mktemp -d)
trap 'for p in $K $R $S; do "$bin" lab down --prefix $p >/dev/null 2>&1; done; rm -rf "$tmp"' EXIT INT TERM
deck=$src/decks/fragquiz.json
answers='[.results[] | [.spec.proto, .spec.mode, .spec.size, .sent.answer, .df.answer, .fragmented.answer, .fragmenter] | map(tostring) | join(" ")] | .[]'

# Spends the ICMP budget the lab's routers keep for src: 30 datagrams with TTL 1
# and 30 with TTL 2, per family, at once (each draws a Time Exceeded).
drain() {
  ip netns exec "$1-src" python3 - <<'PY'
import socket
for fam, dst in ((socket.AF_INET, "203.0.113.2"), (socket.AF_INET6, "2001:db8:3::2")):
    for ttl in (1, 2):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        if fam == socket.AF_INET: s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, ttl)
        else: s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, ttl)
        for i in range(30): s.sendto(b"x" * 100, (dst, 33000 + i))
        s.close()
PY
}
ms() { date +%s%3N; }

"$bin" lab up --prefix $K >/dev/null || { echo "FAIL lab up"; exit 1; }
t0=$(ms); "$bin" probe --prefix $K --deck "$deck" --json >"$tmp/kind.json" 2>/dev/null; t_kind=$(( $(ms) - t0 ))
"$bin" lab down --prefix $K >/dev/null

"$bin" lab up --prefix $R --ratelimit r1 --ratelimit r2 >/dev/null || { echo "FAIL lab up --ratelimit"; exit 1; }
drain $R
t0=$(ms); "$bin" probe --prefix $R --deck "$deck" --json >"$tmp/limited.json" 2>/dev/null; t_limited=$(( $(ms) - t0 ))
n=$(jq '.tests | length' "$deck")
check "every test of the deck ran on both labs" test "$(jq '[.results[] | select(.error | not)] | length' "$tmp/kind.json")" -eq "$n" \
  -a "$(jq '[.results[] | select(.error | not)] | length' "$tmp/limited.json")" -eq "$n"
check "none unknown behind rate-limiting routers" test "$(jq '[.results[] | select(.sent.answer == "unknown" or .df.answer == "unknown" or .fragmented.answer == "unknown")] | length' "$tmp/limited.json")" -eq 0
jq -r "$answers" "$tmp/kind.json" >"$tmp/kind.txt"
jq -r "$answers" "$tmp/limited.json" >"$tmp/limited.txt"
check "the same answers as on the kind lab" diff "$tmp/kind.txt" "$tmp/limited.txt"
echo "probe --deck ($n tests): kind lab $t_kind ms, routers rate-limiting with their budget spent $t_limited ms"

# A path never seen: TTL discovery from inside src with only the address.
drain $R
t0=$(ms)
ip netns exec $R-src "$bin" probe -p udp4 -f dont -s 1400 -a 203.0.113.2 --json >"$tmp/real.json" 2>"$tmp/real.err"; rc=$?
t_real=$(( $(ms) - t0 ))
check "discovery behind spent budgets still finds the path (exit 0)" test $rc -eq 0
check "it says rate-limited (its discovery or its own TTL-limited send)" jq -e '.ttl_basis + " " + .evidence | test("rate-limited")' "$tmp/real.json"
check "fragmented? answered" test "$(jq -r '.fragmented.answer' "$tmp/real.json")" != unknown
echo "one test on a path never seen, its routers' budget spent: $t_real ms ($(jq -r '.ttl_basis + " | " + .evidence' "$tmp/real.json"))"
"$bin" lab down --prefix $R >/dev/null

"$bin" lab up --prefix $S --silent r1 --silent r2 >/dev/null || { echo "FAIL lab up --silent"; exit 1; }
ip netns exec $S-src "$bin" probe -p udp4 -f dont -s 1400 -a 203.0.113.2 --json >"$tmp/silent.json" 2>"$tmp/silent.err"; rc=$?
cat "$tmp/silent.err" | tail -3
check "silent routers: not called rate-limited" test "$(grep -c 'rate-limited' "$tmp/silent.json" "$tmp/silent.err" | awk -F: '{s+=$2} END {print s}')" -eq 0
check "silent routers: the path picture marks them silent" test "$(jq '[.path.nodes[] | select(.silent)] | length' "$tmp/silent.json" 2>/dev/null || echo 0)" -ge 1

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
