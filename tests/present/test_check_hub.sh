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
echo quit >&7
exit $fail
