#!/usr/bin/env bash
# Issue 17: a whole scripted talk in a hosted room. The hub (serve --prober
# remote) in its own namespace, the laptop behind the venue's NAT (it reaches
# the hub, nothing reaches it), the phones in a third namespace that reaches
# only the hub (tests/fragvote/laptop/hosted.sh). The laptop runs `fragvote present
# --script` against its own lab; phones vote through the hub. Checked: every
# acknowledged vote is in the hub's database and nothing else; the reveals the
# phones got are the laptop's truth; every stored measurement equals what
# `fragvote probe --json` says run alone on the laptop's lab (the facts and
# every observation field that does not change between runs); the present
# process listens on nothing, and a connection from the phones (or the hub)
# to the laptop does not open; the export downloaded by --export is the hub's.
set -u
. "$(dirname "$0")/../../support/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/hosted.sh"

hosted_begin present-nat fvn$$

cat >"$tmp/deck.json" <<'EOF'
{
  "title": "Hosted room: the NAT test",
  "target": "lab",
  "tests": [
    {"proto": "udp4", "mode": "default", "size": 1400},
    {"proto": "udp4", "mode": "dont", "size": 1400}
  ]
}
EOF
phones=8
{
  for q in 1 2 3 4 5 6; do
    echo "open"
    echo "wait-votes $phones 30000"
    echo "close"
    echo "measure"
    echo "wait-measured 60000"
    echo "reveal"
    echo "show"
    echo "next"
  done
  echo "quit-at-end"
} >"$tmp/talk.txt"

# The hub: no probe engine, a console kept open on a fifo.
hosted_hub

# The venue: the laptop reaches the hub; neither the phones nor the hub reach the laptop.
ip netns exec "$L" python3 -c 'import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 8099)); s.listen()
time.sleep(8)' &
lis=$!
sleep 0.5
check laptop_reaches_hub hosted_reach "$L" "$HOSTED_HUB" "$port"
check phones_reach_hub hosted_reach "$P" "$HOSTED_HUB" "$port"
check phones_do_not_reach_the_laptop_even_where_it_listens hosted_unreachable "$P" "$HOSTED_LAPTOP" 8099
check hub_does_not_reach_the_laptop hosted_unreachable "$H" "$HOSTED_LAPTOP" 8099
kill $lis 2>/dev/null; wait $lis 2>/dev/null

ip netns exec "$P" python3 "$here/phones.py" "ws://$HOSTED_HUB:$port/" --phones $phones --max-s 240 \
  >"$tmp/phones.json" 2>"$tmp/phones.err" &
ph=$!

ip netns exec "$L" env FRAGVOTE_LAB_PREFIX="$prefix" "$bin" present "ws://$HOSTED_HUB:$port/" --secret hub-presenter-secret \
  --deck "$tmp/deck.json" --target lab --script "$tmp/talk.txt" --no-qr --export "$tmp/talk.csv" \
  >"$tmp/present.out" 2>"$tmp/present.err" &
pr=$!
# While the talk runs: the present process has no listening socket in the laptop's namespace.
listening=""
for _ in $(seq 20); do
  sleep 0.5
  kill -0 $pr 2>/dev/null || break
  listening+=$(hosted_listening $pr "$L")
done
check present_listens_on_nothing test -z "$listening"
wait $pr
rc=$?
check present_script_ran_to_the_end test "$rc" -eq 0
[ "$rc" -eq 0 ] || { echo "--- present"; cat "$tmp/present.out" "$tmp/present.err"; echo "--- hub"; cat "$tmp/hub.out"; }
wait $ph
cat "$tmp/phones.err"

# Phones: all joined and voted on every question; every vote acknowledged.
check phones_joined test "$(jq .joined "$tmp/phones.json")" -eq $phones
check phones_voted_on_every_question test "$(jq .sent "$tmp/phones.json")" -eq $((phones * 6))
check every_vote_acked test "$(jq .acked "$tmp/phones.json")" -eq $((phones * 6))
check no_phone_errors test "$(jq .errors "$tmp/phones.json")" -eq 0
check phones_saw_the_end test "$(jq .ended "$tmp/phones.json")" = true

db=$tmp/hub.db
sq() { sqlite3 -readonly "$db" "$1"; }
session=$(sq "SELECT max(id) FROM sessions")
check every_acked_vote_in_the_hubs_db test "$(sq "SELECT count(*) FROM votes v JOIN questions q ON q.id = v.question_id WHERE q.session_id = $session")" -eq "$(jq .acked "$tmp/phones.json")"
check voters_in_the_hubs_db test "$(sq "SELECT count(*) FROM voters WHERE session_id = $session")" -eq $phones
check the_session_is_the_laptops_deck test "$(sq "SELECT title FROM sessions WHERE id = $session")" = "Hosted room: the NAT test"
check all_questions_revealed test "$(sq "SELECT count(*) FROM questions WHERE session_id = $session AND state = 'revealed'")" -eq 6
# The laptop measured: its kernel, target and lab layout are the live set's (the hub's own say "remote").
live="SELECT %s FROM measurement_sets WHERE session_id = $session AND kind = 'live'"
check live_set_is_the_laptops_target test "$(sq "$(printf "$live" target)")" = lab
check live_set_has_the_laptops_lab test "$(sq "$(printf "$live" "json_extract(lab, '\$.prefix')")")" = "$prefix"
check live_set_has_the_laptops_kernel test "$(sq "$(printf "$live" kernel)")" = "$(uname -s) $(uname -r)"
check session_still_says_remote test "$(sq "SELECT target FROM sessions WHERE id = $session")" = remote

# Every stored measurement equals the probe run alone on the laptop's lab.
ip netns exec "$L" env FRAGVOTE_LAB_PREFIX="$prefix" "$bin" probe --deck "$tmp/deck.json" --json >"$tmp/alone.json" 2>/dev/null
keep='{sent,df,fragmented,fragmenter,quote,icmp,hop,hop_name,egress,observer,evidence,dev_mtu,path_mtu_before,send_errno,w:(.witness|{heard,fragments,bytes,df})}'
for t in 0 1; do
  stored=$(sq "SELECT m.observation FROM measurements m JOIN questions q ON q.id = m.question_id WHERE q.session_id = $session AND q.test_index = $t ORDER BY m.id LIMIT 1")
  a=$(printf '%s' "$stored" | jq -cS "$keep")
  b=$(jq -cS ".results[$t] | $keep" "$tmp/alone.json")
  check "test_${t}_measurement_equals_probe_alone" test -n "$a" -a "$a" = "$b"
  [ "$a" = "$b" ] || { echo "stored: $a"; echo "alone:  $b"; }
  n=$(sq "SELECT count(DISTINCT m.observation) FROM measurements m JOIN questions q ON q.id = m.question_id WHERE q.session_id = $session AND q.test_index = $t")
  check "test_${t}_measured_once" test "$n" -eq 1
done

# The reveals the phones saw are the laptop's truth.
for pos in 0 1 2 3 4 5; do
  want=$(sq "SELECT m.answer FROM measurements m JOIN questions q ON q.id = m.question_id WHERE q.session_id = $session AND q.position = $pos ORDER BY m.id DESC LIMIT 1")
  got=$(jq -r ".reveals[\"$pos\"]" "$tmp/phones.json")
  alone=$(jq -r --argjson p $pos '.results[($p / 3 | floor)] | [.sent, .df, .fragmented][$p % 3].answer' "$tmp/alone.json")
  check "reveal_${pos}_is_the_laptops_truth" test "$got" = "$want" -a "$got" = "$alone"
done
check present_console_showed_truths grep -q "Truth: " "$tmp/present.out"
check export_downloaded test -s "$tmp/talk.csv"
(cd "$tmp" && "$bin" export --db "$db" --format csv "$session" >"$tmp/hub.csv" 2>/dev/null)
check export_is_the_hubs cmp -s "$tmp/talk.csv" "$tmp/hub.csv"

echo quit >&7
wait $hub
exec 7>&-
exit $fail
