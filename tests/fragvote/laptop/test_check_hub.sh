#!/usr/bin/env bash
# Issue 39: `fragvote check --hub URL` in the hosted room's venue
# (tests/fragvote/laptop/hosted.sh: the hub in its namespace, the laptop behind the
# venue's NAT). From the laptop: a websocket through the hub opens, is held
# and every ping is answered (✔, exit 0); a port where no hub listens does
# not open (✘, exit 10); a websocket whose path goes silent during the hold
# (hosted_cut: the laptop's wifi gone) is reported lost (✘). --phone: the
# printed URL (the room's join URL with check=1) opened by a phone in the
# phones' namespace (tests/fragvote/laptop/phones.py, which measures its round trip
# as the phone page does): ✔ with the phone's round trip, once over the plain
# path and once across a relay that holds the phone's bytes 50 ms (this
# kernel has no netem): the figure is at least the delay.
set -u
. "$(dirname "$0")/../../support/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/hosted.sh"

hosted_begin check-hub fvh$$
hosted_hub

incheck() { local name=$1; shift; ip netns exec "$L" env FRAGVOTE_LAB_PREFIX="$prefix" "$bin" check --burst 0 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; echo $? >"$tmp/$name.rc"; }
hubline() { grep 'websocket through the hub' "$tmp/$1.out"; }

incheck ok --hub "http://$HOSTED_HUB:$port/?room=ABC" --hub-hold 3
sed 's/^/  /' "$tmp/ok.out"
check "through the hub: exit 0, no ✘" test "$(cat "$tmp/ok.rc")" -eq 0 -a "$(grep -c '^✘' "$tmp/ok.out")" -eq 0
check "through the hub: ✔ held 3 s, every ping answered" \
  sh -c "grep 'websocket through the hub' '$tmp/ok.out' | grep -Eq '^✔ .*held 3\.[0-9] s; ([3-9]) of \1 pings answered'"

incheck gone --hub "ws://$HOSTED_HUB:9/" --hub-hold 3
check "no hub on that port: exit 10, ✘ did not open" \
  test "$(cat "$tmp/gone.rc")" -eq 10 -a "$(hubline gone | grep -c '^✘ .*did not open')" -eq 1

# The path goes silent 2 s into a 12 s hold: the link takes it as lost after
# PRESENT_DEAD_MS (6 s) without a frame.
incheck cut --hub "ws://$HOSTED_HUB:$port/" --hub-hold 12 &
cpid=$!
sleep 2.5
hosted_cut
wait $cpid
hosted_mend
echo "  $(hubline cut)"
check "the path cut during the hold: exit 10, ✘ lost after some seconds" \
  test "$(cat "$tmp/cut.rc")" -eq 10 -a "$(hubline cut | grep -c '^✘ .*then lost .* s after it opened')" -eq 1
# --phone: the join URL shown, then one phone (tests/fragvote/laptop/phones.py) opens
# it from the phones' namespace (extra phones.py options: "$@").
phone_check() {
  local name=$1; shift
  ip netns exec "$L" env FRAGVOTE_SECRET=hub-presenter-secret "$bin" check --burst 0 --hub "ws://$HOSTED_HUB:$port/" \
    --phone --phone-wait 30 >"$tmp/$name.out" 2>"$tmp/$name.err" &
  local cpid=$! ppid
  for _ in $(seq 100); do grep -q 'Open this on a phone' "$tmp/$name.out" && break; sleep 0.1; done
  shown=$(grep -A1 'Open this on a phone' "$tmp/$name.out" | tail -1 | tr -d ' ')
  ip netns exec "$P" python3 "$here/phones.py" "$shown" --phones 1 --max-s 8 "$@" >"$tmp/$name.json" 2>&1 &
  ppid=$!
  wait $cpid; echo $? >"$tmp/$name.rc"
  kill $ppid 2>/dev/null; wait $ppid 2>/dev/null
  echo "  shown: $shown"
  echo "  $(grep 'a phone joining' "$tmp/$name.out")"
}
# rtt_ok NAME LO HI: the check's line carries the phone's round trip, 5
# samples, LO <= median <= max < HI ms, the figures the phone itself sent
# (to the 0.1 ms the relay carries).
rtt_ok() {
  python3 - "$tmp/$1.out" "$tmp/$1.json" "$2" "$3" <<'PY'
import json, re, sys
out, rep, lo, hi = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), float(sys.argv[3]), float(sys.argv[4])
m = re.search(r"^✔ a phone joining through the hub .* · round trip median ([0-9.]+) ms, max ([0-9.]+) ms \(5 samples\)$",
              out, re.M)
sent = rep["rtt"]
print("  printed: %s; the phone sent: %s" % (m and m.groups(), sent))
med, mx = (float(m.group(1)), float(m.group(2))) if m else (-1, -1)
ok = m and len(sent) == 1 and lo <= med <= mx < hi
ok = ok and abs(med - sent[0]["median_ms"]) <= 0.11 and abs(mx - sent[0]["max_ms"]) <= 0.11
sys.exit(0 if ok else 1)
PY
}
phone_check phone
check "--phone: the room's join URL shown (the hub's, with its room code), check=1 added" \
  sh -c "echo '$shown' | grep -Eq '^http://$HOSTED_HUB:$port/\?room=[A-Z0-9]+&check=1\$'"
check "--phone: a QR code drawn under it" test "$(grep -c '▀\|▄\|█' "$tmp/phone.out")" -ge 10
check "--phone: ✔ one phone joined through the hub, exit 0" \
  test "$(cat "$tmp/phone.rc")" -eq 0 -a "$(grep -c '^✔ a phone joining through the hub .*1 phone joined the room through the hub' "$tmp/phone.out")" -eq 1
check "--phone: the phone's round trip printed: 5 samples, 0 < median <= max < 1000 ms, as the phone sent it" \
  rtt_ok phone 0.001 1000
phone_check slowphone --path-delay-ms 50
slow_ok() { test "$(cat "$tmp/slowphone.rc")" -eq 0 && rtt_ok slowphone 50 1050; }
check "--phone, the phone's path 50 ms slower: ✔, exit 0, 50 <= median <= max < 1050 ms" slow_ok

ip netns exec "$L" env FRAGVOTE_SECRET=hub-presenter-secret "$bin" check --burst 0 --hub "ws://$HOSTED_HUB:$port/" \
  --phone --phone-wait 2 >"$tmp/nophone.out" 2>&1; nrc=$?
check "--phone, nobody opens it: ✘ no phone joined in 2 s, exit 10" \
  test $nrc -eq 10 -a "$(grep -c '^✘ a phone joining .*no phone joined in 2 s' "$tmp/nophone.out")" -eq 1
incheck nosecret --hub "ws://$HOSTED_HUB:$port/" --phone --phone-wait 2
check "--phone without the secret: ✘ says to give it" \
  test "$(cat "$tmp/nosecret.rc")" -eq 10 -a "$(grep -c '^✘ a phone joining .*no presenter secret given' "$tmp/nosecret.out")" -eq 1
ip netns exec "$L" env FRAGVOTE_SECRET=not-the-hub-secret-at-all "$bin" check --burst 0 --hub "ws://$HOSTED_HUB:$port/" \
  --phone --phone-wait 2 >"$tmp/badsecret.out" 2>&1; brc=$?
echo "  $(grep 'a phone joining' "$tmp/badsecret.out")"
check "--phone with another secret: ✘ the hub refused it, exit 10" \
  test $brc -eq 10 -a "$(grep -c '^✘ a phone joining .*the hub refused' "$tmp/badsecret.out")" -eq 1
echo quit >&7
exit $fail
