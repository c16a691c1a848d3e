#!/usr/bin/env bash
# Issue 39: `fragvote check`, the venue check, run as a speaker runs it on
# the laptop (inside the lab's src, the lab standing for the venue network
# and the path beyond it), once for each ✘ it can report and for the all-✔
# path: a loopback join address (--bind, and a host with no default route),
# a link-local one, one on an interface without a default route, routers
# that send no Time Exceeded (`lab --silent`), routers that rate-limit ICMP
# (`lab --ratelimit`; the Time Exceeded the check counted are those tcpdump
# saw reach src), an unreachable and a wrongly keyed witness, no IPv6
# default route, no privilege. Probes go only to this test's namespaces.
# Needs root (namespaces, raw sockets, nft).
set -u
. "$(dirname "$0")/../../support/lib.sh"

if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (network namespaces, raw sockets)"; exit 77; fi
for t in ip nft tcpdump setpriv; do
  command -v $t >/dev/null || { echo "SKIP: needs $t (scripts/apt-packages.txt)"; exit 77; }
done
P=fvc$$ prefix=fvc$$
fv_tmp check-lab
wpid=
trap '[ -n "$wpid" ] && kill "$wpid" 2>/dev/null; wait 2>/dev/null; fv_cleanup' EXIT INT TERM

# Two IPv4 tests and one IPv6 test, each to a target off the lab.
cat >"$tmp/deck.json" <<'JSON'
{"title": "venue check", "target": "203.0.113.2",
 "tests": [
  {"proto": "udp4", "mode": "do", "size": 1400, "ask": ["sent", "df", "fragmented"]},
  {"proto": "udp4", "mode": "dont", "size": 1400, "ask": ["fragmented"]},
  {"proto": "udp6", "mode": "do", "size": 1400, "target": "2001:db8:3::2", "ask": ["sent"]}
 ]}
JSON
chmod 755 "$tmp"; chmod 644 "$tmp/deck.json" # uid 65534 reads the deck too
insrc() { ip netns exec $P-src "$@"; }
# check NAME [options]: output in $tmp/NAME.out, exit code in $tmp/NAME.rc
run() { local name=$1; shift; insrc "$bin" check --deck "$tmp/deck.json" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; echo $? >"$tmp/$name.rc"; }
rc() { cat "$tmp/$1.rc"; }
has() { grep -q -- "$2" "$tmp/$1.out"; }
fails() { grep -- "^✘ $2" "$tmp/$1.out" | grep -q -- "$3"; }   # a ✘ line of that check saying that
nfail() { grep -c '^✘' "$tmp/$1.out"; }

"$bin" check --help >"$tmp/help" 2>&1; hrc=$?
check "check --help: exit 0, names the exit codes" test $hrc -eq 0 -a "$(grep -c 'Exit codes: 0 every check' "$tmp/help")" -eq 1

"$bin" lab up --prefix $P >/dev/null || { echo "FAIL lab up"; exit 1; }
ip netns exec $P-dst "$bin" witness --seconds 120 9000 >"$tmp/w.out" 2>"$tmp/w.err" &
wpid=$!
for _ in $(seq 1 100); do grep -q '^key ' "$tmp/w.out" && break; sleep 0.05; done
key=$(awk '/^key /{print $2}' "$tmp/w.out")

# The all-✔ path: the kind lab, the witness in dst with its key.
run ok --witness 203.0.113.2:9000 --witness-key "$key"
sed 's/^/  /' "$tmp/ok.out"
check "kind lab: exit 0, no ✘" test "$(rc ok)" -eq 0 -a "$(nfail ok)" -eq 0
check "kind lab: the join URL is src's address on the default route's interface" has ok "^✔ join URL http://192.0.2.1:8080/.*on v-r1, which holds the default route"
check "kind lab: both targets reachable, routers answer" test "$(grep -c '^✔ target .*the routers on the way answer Time Exceeded' "$tmp/ok.out")" -eq 2
check "kind lab: the burst answered in full, both families" test "$(grep -c '^✔ ICMP rate towards .*answered all 10 Time Exceeded of 10' "$tmp/ok.out")" -eq 2
check "kind lab: the witness reachable and keyed" has ok "^✔ witness 203.0.113.2:9000: reachable and keyed"
check "kind lab: IPv6 there" has ok "^✔ IPv6: a default route on v-r1"
check "kind lab: the deck measures 3 of 3" has ok "This deck will measure 3 of 3 tests on this network"

# The join URL: loopback (--bind), link-local, an interface without a default route.
run lo --bind 127.0.0.1 --no-witness
check "--bind 127.0.0.1: exit 10, the join URL ✘ loopback" test "$(rc lo)" -eq 10 -a "$(nfail lo)" -eq 1
check "--bind 127.0.0.1: says loopback and what to do" fails lo "join URL http://127.0.0.1:8080/" "is loopback: no phone can reach it. Do: --bind"
ip -n $P-src addr add 169.254.7.1/16 dev v-r1
run ll --bind 169.254.7.1 --no-witness
check "--bind 169.254.7.1: the join URL ✘ link-local" fails ll "join URL" "is link-local"
ip -n $P-src link add d0 type veth peer name d1 && ip -n $P-src addr add 198.18.0.1/24 dev d0 && ip -n $P-src link set d0 up && ip -n $P-src link set d1 up
run nodef --bind 198.18.0.1 --no-witness
check "--bind on an interface without the default route: ✘ naming it" fails nodef "join URL" "198.18.0.1 is on d0, which holds no default route"
ip -n $P-src route del default
run noroute --no-witness --burst 0
ip -n $P-src route add default via 192.0.2.2
check "no IPv4 default route: the join URL is 127.0.0.1, ✘ loopback" fails noroute "join URL http://127.0.0.1" "this host has no IPv4 default route"

# The witness: nothing listening there, or another key.
run wgone --witness 203.0.113.2:9009 --witness-key "$key"
check "a witness not running: exit 10, ✘ no signed report" test "$(rc wgone)" -eq 10 -a "$(grep -c '^✘ witness 203.0.113.2:9009: no signed report came back' "$tmp/wgone.out")" -eq 1
run wkey --witness 203.0.113.2:9000 --witness-key 00112233445566778899aabbccddeeff
check "a wrong key: ✘ no signed report" fails wkey "witness 203.0.113.2:9000" "no signed report came back"
run wnokey --witness 203.0.113.2:9000 --witness-key ""
check "no key at all: ✘ says it needs its key" fails wnokey "witness" "needs its key"

# No IPv6: src without its IPv6 default route.
ip -n $P-src -6 route del default
run nov6 --no-witness
ip -n $P-src -6 route add default via 2001:db8:1::2
check "no IPv6 default route: exit 10, ✘ IPv6 naming the deck's IPv6 test" fails nov6 "IPv6" "no IPv6 default route: the deck's 1 IPv6 test cannot leave"
check "no IPv6 default route: the IPv6 target ✘ no route" fails nov6 "target 2001:db8:3::2" "no route"
check "no IPv6 default route: the deck measures 2 of 3" has nov6 "This deck will measure 2 of 3 tests"

# No privilege: uid 65534 without capabilities.
ip netns exec $P-src setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all \
  "$bin" check --deck "$tmp/deck.json" --no-witness >"$tmp/nopriv.out" 2>&1; echo $? >"$tmp/nopriv.rc"
check "no privilege: exit 10, CAP_NET_RAW and CAP_NET_ADMIN ✘" test "$(rc nopriv)" -eq 10 \
  -a "$(grep -c '^✘ privilege CAP_NET_\(RAW\|ADMIN\): missing' "$tmp/nopriv.out")" -eq 2
check "no privilege: the targets are not asked (no discovery)" fails nopriv "target 203.0.113.2" "not asked: TTL discovery needs CAP_NET_RAW"

# Routers that send no Time Exceeded.
"$bin" lab set --prefix $P --silent r1 --silent r2 >/dev/null || { echo "FAIL lab set --silent"; exit 1; }
run silent --no-witness
check "silent routers: exit 10, both targets ✘ no router answers" test "$(rc silent)" -eq 10 \
  -a "$(grep -c '^✘ target .*no router on the way answers Time Exceeded' "$tmp/silent.out")" -eq 2
check "silent routers: the destination still answers (reachable)" has silent "reachable (the destination answers at TTL 3)"
check "silent routers: no rate burst (no router to aim at), 0 of 3 measured" test "$(grep -c 'ICMP rate' "$tmp/silent.out")" -eq 0 \
  -a "$(grep -c 'This deck will measure 0 of 3' "$tmp/silent.out")" -eq 1
run silentw --witness 203.0.113.2:9000 --witness-key "$key"
check "silent routers with a keyed witness: its IPv4 tests measure (2 of 3)" has silentw "This deck will measure 2 of 3 tests"

# Routers that keep Linux's default ICMP rate limits; tcpdump counts the
# Time Exceeded that reached src meanwhile.
"$bin" lab set --prefix $P --ratelimit r1 --ratelimit r2 >/dev/null || { echo "FAIL lab set --ratelimit"; exit 1; }
sleep 6.5 # the routers' buckets full again (the silent runs spent nothing, the set may have)
insrc tcpdump -U --immediate-mode -n -i v-r1 -w "$tmp/rl.pcap" 'icmp[icmptype] == 11' 2>"$tmp/tcpdump.err" &
tpid=$!
for _ in $(seq 1 100); do grep -q 'listening on' "$tmp/tcpdump.err" && break; sleep 0.05; done
run rl --no-witness --burst 12
sleep 0.3; kill $tpid; wait $tpid 2>/dev/null
sed 's/^/  /' "$tmp/rl.out"
seen=$(tcpdump -n -r "$tmp/rl.pcap" 2>/dev/null | grep -c 'time exceeded')
said=$(sed -n 's/^✘ ICMP rate towards 203.0.113.2 .*answered \([0-9]*\) of 12 datagrams.*/\1/p' "$tmp/rl.out")
check "rate-limited routers: exit 10, the IPv4 rate ✘ says rate-limits" test "$(rc rl)" -eq 10 -a -n "$said"
check "rate-limited routers: fewer answered than sent (about the burst of 6)" test "${said:-99}" -ge 4 -a "${said:-99}" -le 9
check "rate-limited routers: the targets themselves ✔ (they answer)" test "$(grep -c '^✔ target ' "$tmp/rl.out")" -eq 2
echo "  IPv4 Time Exceeded on the wire: $seen (discovery 1 + the burst's $said)"
check "rate-limited routers: the count equals the wire's (tcpdump: discovery's 1 + the burst's)" test "$seen" -eq $(( ${said:-0} + 1 ))

exit $fail
