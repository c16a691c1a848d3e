#!/usr/bin/env bash
# Issue 17: link loss is normal. The venue of tests/fragvote/laptop/hosted.sh; the
# laptop presents with `fragvote present --script`. In the middle of the first
# question the laptop's link goes silent for 10 s (every packet to and from it
# dropped at the router: no error, as when the wifi goes). Meanwhile more
# phones join and vote, and are acknowledged; the hub's own console closes the
# question and asks for the measurement (the hub runs --no-prefetch, so the
# ask is new), which waits for the prober. Checked:
# the phones' acks during the cut, the laptop's console saying the hub is
# unreachable and then connected again, the measurement arriving after the
# link is back (measured on the laptop's lab, equal to the probe alone), the
# script running on to the end, and every acknowledged vote in the database.
set -u
. "$(dirname "$0")/../../support/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/hosted.sh"

hosted_begin present-linkloss fvk$$

cat >"$tmp/deck.json" <<'EOF'
{
  "title": "Hosted room: link loss",
  "target": "lab",
  "tests": [ {"proto": "udp4", "mode": "dont", "size": 1400} ]
}
EOF
first=6 later=4
cat >"$tmp/talk.txt" <<EOF
open
wait-votes $first 30000
# here the link goes; the hub's console closes and measures meanwhile
wait-state measured 120000
reveal
next
EOF
for _ in 2 3; do
  printf 'open\nwait-votes %d 30000\nclose\nmeasure\nwait-measured 60000\nreveal\nnext\n' $((first + later))
done >>"$tmp/talk.txt"
echo quit-at-end >>"$tmp/talk.txt"

hosted_hub --no-prefetch

ip netns exec "$P" python3 "$here/phones.py" "ws://$HOSTED_HUB:$port/" --phones $first --max-s 240 \
  >"$tmp/phones1.json" 2>&1 &
ph1=$!
ip netns exec "$L" env FRAGVOTE_LAB_PREFIX="$prefix" "$bin" present "ws://$HOSTED_HUB:$port/" --secret hub-presenter-secret \
  --deck "$tmp/deck.json" --script "$tmp/talk.txt" --no-qr >"$tmp/present.out" 2>"$tmp/present.err" &
pr=$!

sq() { sqlite3 -readonly "$tmp/hub.db" "$1" 2>/dev/null; }
votes_q0() { sq "SELECT count(*) FROM votes v JOIN questions q ON q.id = v.question_id WHERE q.position = 0 AND q.session_id = (SELECT max(id) FROM sessions)"; }
for _ in $(seq 300); do [ "$(votes_q0)" = "$first" ] && break; sleep 0.1; done
check first_phones_voted test "$(votes_q0)" = "$first"

# The cut: 10 s of silence on the laptop's link.
hosted_cut
cut_at=$(date +%s.%N)
ip netns exec "$P" python3 "$here/phones.py" "ws://$HOSTED_HUB:$port/" --phones $later --max-s 240 \
  >"$tmp/phones2.json" 2>&1 &
ph2=$!
for _ in $(seq 100); do [ "$(votes_q0)" = "$((first + later))" ] && break; sleep 0.1; done
check later_phones_voted_during_the_cut test "$(votes_q0)" = "$((first + later))"
echo close >&7
echo measure >&7
sleep 1
check hub_waits_for_the_prober test "$(sq "SELECT state FROM questions WHERE position = 0 AND session_id = (SELECT max(id) FROM sessions)")" = closed
while awk -v a="$cut_at" -v b="$(date +%s.%N)" 'BEGIN { exit !(b - a < 10) }'; do sleep 0.2; done
check console_says_hub_unreachable grep -q "^Hub: hub unreachable" "$tmp/present.out"
hosted_mend
mend_at=$(date +%s.%N)

wait $pr
rc=$?
check present_script_ran_to_the_end test "$rc" -eq 0
[ "$rc" -eq 0 ] || { echo "--- present"; cat "$tmp/present.out" "$tmp/present.err"; echo "--- hub"; cat "$tmp/hub.out"; }
wait $ph1 $ph2
check console_connected_again grep -q "^Hub: connected to the hub again" "$tmp/present.out"

# Acks during the cut: the later phones' votes on question 1 were acknowledged while the laptop was away.
during=$(jq --argjson a "$cut_at" --argjson b "$mend_at" '[.acks[] | select(.[0] >= $a and .[0] <= $b and .[2] == 0)] | length' "$tmp/phones2.json")
check later_phones_acked_during_the_cut test "$during" -eq $later
total=$(( $(jq .acked "$tmp/phones1.json") + $(jq .acked "$tmp/phones2.json") ))
session=$(sq "SELECT max(id) FROM sessions")
check every_acked_vote_stored test "$(sq "SELECT count(*) FROM votes v JOIN questions q ON q.id = v.question_id WHERE q.session_id = $session")" -eq "$total"
check all_phones_acked test "$total" -eq $(( (first + later) * 3 ))

# The measurement asked while away arrived after the link came back, from the laptop's lab.
measured_at=$(sq "SELECT min(m.measured_at) FROM measurements m JOIN questions q ON q.id = m.question_id WHERE q.session_id = $session AND q.position = 0")
check measurement_arrived_after_the_mend awk -v m="$measured_at" -v a="$mend_at" 'BEGIN { exit !(m != "" && m >= a) }'
ip netns exec "$L" env FRAGVOTE_LAB_PREFIX="$prefix" "$bin" probe --deck "$tmp/deck.json" --json >"$tmp/alone.json" 2>/dev/null
keep='{sent,df,fragmented,fragmenter,quote,icmp,hop,egress,observer,evidence}'
a=$(sq "SELECT m.observation FROM measurements m JOIN questions q ON q.id = m.question_id WHERE q.session_id = $session AND q.position = 0" | head -1 | jq -cS "$keep")
b=$(jq -cS ".results[0] | $keep" "$tmp/alone.json")
check measurement_equals_probe_alone test -n "$a" -a "$a" = "$b"
check all_revealed test "$(sq "SELECT count(*) FROM questions WHERE session_id = $session AND state = 'revealed'")" -eq 3

echo quit >&7
wait $hub
exec 7>&-
exit $fail
