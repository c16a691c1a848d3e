#!/usr/bin/env bash
# `fragvote pmtu discover --watch` as an unprivileged user in the lab's src
# namespace, with a 2-second interval, while the r1-r2 link's MTU changes
# under it (`ip link set ... mtu` in r1 and r2): raised from 1280 to 1400 the
# next size up (1360) is acknowledged, so the larger sizes are reprobed and
# the path MTU becomes 1400; lowered to 1300 the current size (1400) is lost,
# so it starts over and finds 1280 again. Each change is printed with a UTC
# timestamp no later than one interval (plus one round trip's timeout) after
# the link changed -- with ICMP echo (IPv4, IPv6) and with a UDP responder. --seconds ends the watch by itself, SIGINT ends it
# cleanly, and the options are checked.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lab.sh"
pmtu_need_root
INTERVAL=2
TIMEOUT_MS=500
# A change must show at the first reprobe after it: one interval, plus the
# round trips of that reprobe (each at most the timeout).
LIMIT=$(awk -v i=$INTERVAL -v t=$TIMEOUT_MS 'BEGIN { print i + 2 * t / 1000 }')
out=$(mktemp /tmp/fvpmw-XXXXXX)
trap 'rm -f "$out"; pmtu_lab_down' EXIT

# set_mid MTU: the r1-r2 link, both ends.
set_mid() { ip -n "$NS_R1" link set eth1 mtu "$1" && ip -n "$NS_R2" link set eth0 mtu "$1"; }
# wait_line REGEX SECONDS: until a line of the watch's output matches.
wait_line() {
  local i
  for i in $(seq 1 $(( $2 * 20 ))); do grep -qE "$1" "$out" && return 0; sleep 0.05; done
  return 1
}
# line_time REGEX: the UTC timestamp of the first matching line, as epoch seconds.
line_time() { date -u -d "$(grep -E "$1" "$out" | head -1 | awk '{print $1}')" +%s.%N; }
# within START REGEX: the matching line came at most LIMIT seconds after START.
within() {
  local t d
  t=$(line_time "$2") || { fail "no timestamp on '$2'"; return; }
  d=$(awk -v a="$1" -v b="$t" 'BEGIN { printf "%.2f", b - a }')
  if awk -v d="$d" -v l="$LIMIT" 'BEGIN { exit !(d >= 0 && d <= l) }'; then
    pass "found ${d} s after the change (at most ${LIMIT} s: one ${INTERVAL}-s interval + its round trips)"
  else
    fail "found ${d} s after the change, more than one interval (${LIMIT} s)"
  fi
}

# change_found MTU REGEX WHAT: set the r1-r2 link to MTU; the watch must print
# a line matching REGEX, no later than LIMIT after the change.
change_found() {
  local t_change
  sleep 0.5
  t_change=$(date -u +%s.%N); set_mid "$1"
  if wait_line "$2" 5; then
    pass "$3"
    within "$t_change" "$2"
  else
    fail "$3: not found: $(cat "$out")"
  fi
}

pmtu_lab_up 1500 1280 1500
PORT=7007 # UDP acknowledgements from `fragvote pmtu respond` in dst, as well as ICMP echo
ip netns exec "$NS_DST" setpriv --reuid=65534 --regid=65534 --clear-groups \
  "$B" pmtu respond --seconds 120 $PORT 2>/dev/null & PMTU_PIDS="$PMTU_PIDS $!"
for t in $DST4 $DST6 "$DST4:$PORT"; do
  set_mid 1280
  : >"$out"
  as_nobody_in_src "$B" pmtu discover --watch --interval $INTERVAL --timeout $TIMEOUT_MS --seconds 11 "$t" >"$out" 2>&1 &
  watcher=$!
  PMTU_PIDS="$PMTU_PIDS $watcher"
  if wait_line 'Z  path MTU 1280  \(1-RTT' 5; then pass "$t: first discovery says 1280"; else fail "$t: no first line: $(cat "$out")"; fi
  change_found 1400 'path MTU 1280 -> 1400  \(grew: 1360 acknowledged' \
    "$t: raised to 1400: the next size up was acknowledged, the larger sizes reprobed"
  change_found 1300 'path MTU 1400 -> 1280  \(lost: 1400 lost \(1400 too big \(MTU 1300\)' \
    "$t: lowered to 1300: the current size was lost, started over, 1280"
  wait $watcher; rc=$?
  expect_eq "$rc" 0 "$t: --seconds 11 ends the watch by itself, exit 0"
  expect_eq "$(grep -c ' -> ' "$out")" 2 "$t: exactly the two changes were printed"
  if grep -q '^watch ended: .* 2 changes' "$out"; then pass "$t: summary line"; else fail "$t: summary: $(tail -1 "$out")"; fi
  if grep -E ' -> | 1-RTT' "$out" | grep -qvE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z  path MTU'; then
    fail "$t: a change line without a timestamp"
  else
    pass "$t: every change line starts with a UTC timestamp"
  fi
  cat "$out"
done

# --verbose prints the reprobes that change nothing; SIGINT ends the watch
# cleanly, long before --seconds.
set_mid 1280
: >"$out"
ip netns exec "$NS_SRC" "$B" pmtu discover --watch --interval 1 --verbose --seconds 300 "$DST4" >"$out" 2>&1 &
watcher=$!
PMTU_PIDS="$PMTU_PIDS $watcher"
wait_line 'path MTU 1280' 5 || fail "no first line before SIGINT"
if wait_line 'Z  path MTU 1280 unchanged  \(1280 acknowledged, 1360 too big \(MTU 1280\)\)' 4; then
  pass "--verbose: an unchanged reprobe (current and next size) is printed"
else
  fail "--verbose: no unchanged line: $(cat "$out")"
fi
t0=$(date +%s.%N); kill -INT $watcher; wait $watcher; rc=$?; t1=$(date +%s.%N)
expect_eq "$rc" 0 "SIGINT: exit 0"
if grep -q '^watch ended by signal' "$out"; then pass "SIGINT: says it ended by signal"; else fail "SIGINT: $(cat "$out")"; fi
if awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 1) }'; then pass "SIGINT: ended within 1 s"; else fail "SIGINT took $t0..$t1"; fi

# Options.
"$B" pmtu discover --watch --interval 0 "$DST4" >/dev/null 2>&1; expect_eq "$?" 2 "--interval 0 is a usage error"
"$B" pmtu discover --interval 5 "$DST4" >/dev/null 2>&1; expect_eq "$?" 2 "--interval without --watch is a usage error"
"$B" pmtu discover --watch --sequential "$DST4" >/dev/null 2>&1; expect_eq "$?" 2 "--watch with --sequential is a usage error"
"$B" pmtu --help | grep -q -- '--watch' && pass "--help names --watch" || fail "--help lacks --watch"
err=$(ip netns exec "$NS_SRC" "$B" pmtu discover --watch --seconds 2 no-such-host.invalid 2>&1); rc=$?
expect_eq "$rc" 4 "unknown host: exit 4 at once"

pmtu_summary
