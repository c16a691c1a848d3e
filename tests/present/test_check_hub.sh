#!/usr/bin/env bash
# Issue 39: `fragvote check --hub URL` in the hosted room's venue
# (tests/present/hosted.sh: the hub in its namespace, the laptop behind the
# venue's NAT). From the laptop: a websocket through the hub opens, is held
# and every ping is answered (✔, exit 0); a port where no hub listens does
# not open (✘, exit 10); a websocket whose path goes silent during the hold
# (hosted_cut: the laptop's wifi gone) is reported lost (✘).
set -u
. "$(dirname "$0")/../lib.sh"
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
# --phone: the join URL shown, then one phone (tests/present/phones.py) joins from the phones' namespace.
ip netns exec "$L" env FRAGVOTE_SECRET=hub-presenter-secret "$bin" check --burst 0 --hub "ws://$HOSTED_HUB:$port/" \
  --phone --phone-wait 30 >"$tmp/phone.out" 2>"$tmp/phone.err" &
cpid=$!
for _ in $(seq 100); do grep -q 'Open this on a phone' "$tmp/phone.out" && break; sleep 0.1; done
shown=$(grep -A1 'Open this on a phone' "$tmp/phone.out" | tail -1 | tr -d ' ')
ip netns exec "$P" python3 "$here/phones.py" "ws://$HOSTED_HUB:$port/" --phones 1 --max-s 5 >"$tmp/phones.json" 2>&1 &
ppid=$!
wait $cpid; prc=$?
kill $ppid 2>/dev/null; wait $ppid 2>/dev/null
echo "  shown: $shown"
echo "  $(grep 'a phone joining' "$tmp/phone.out")"
check "--phone: the room's join URL shown (the hub's, with its room code)" \
  sh -c "echo '$shown' | grep -Eq '^http://$HOSTED_HUB:$port/\?room=[A-Z0-9]+\$'"
check "--phone: a QR code drawn under it" test "$(grep -c '▀\|▄\|█' "$tmp/phone.out")" -ge 10
check "--phone: ✔ one phone joined through the hub, exit 0" \
  test $prc -eq 0 -a "$(grep -c '^✔ a phone joining through the hub .*1 phone joined the room through the hub' "$tmp/phone.out")" -eq 1

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
