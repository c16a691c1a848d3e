#!/usr/bin/env bash
# Lab scenarios in a deck through fragvote serve (docs/DECKS.md): the
# firewall deck's first test on the kind lab, the others on a lab where r2
# drops every fragment. serve switches the lab before the second test (the
# rules only: the same routers and MTUs), each result names what the lab's
# routers do (evidence, lab_does, the path's r2 "does"), the kind test's
# datagram arrives at dst while the firewall's never does (the witness in
# dst), and serve reports the switch and its time. Then the same deck with
# a scenario that changes the MTUs (a rebuild: the witness must follow the
# new dst). Needs root (the lab).
set -u
. "$(dirname "$0")/../support/lib.sh"
src=${FRAGVOTE_SRC:?run through ctest}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab)"; exit 77; fi
for t in jq sqlite3 nft; do command -v $t >/dev/null || { echo "SKIP: needs $t"; exit 77; }; done
prefix="fvsc$$"
fv_tmp serve-scenarios

{
  for _ in $(seq 1 14); do
    printf 'open\nclose\nmeasure\nwait-measured 30000\nreveal\nnext\nquit-at-end\n'
  done
  printf 'quit\n'
} >"$tmp/talk.script"

run_deck() { # deck db
  FRAGVOTE_LAB_PREFIX=$prefix "$bin" serve --deck "$1" --db "$2" --port 0 --bind 127.0.0.1 --no-qr \
    --script "$tmp/talk.script" </dev/null >"$2.out" 2>&1
}
obs() { # db test_index jq-filter -> on the test's latest measurement's observation
  sqlite3 "$1" "SELECT m.observation FROM measurements m JOIN questions q ON q.id = m.question_id
                WHERE q.test_index = $2 ORDER BY m.id DESC LIMIT 1" | jq -r "$3"
}

deck=$src/decks/firewall-fragments.json
run_deck "$deck" "$tmp/fw.db"; rc=$?
check serve_exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/fw.db.out"
n=$(jq '.tests | length' "$deck")
for i in $(seq 0 $((n - 1))); do
  echo "test $i: $(obs "$tmp/fw.db" "$i" '.spec.proto + " " + .spec.mode + " " + (.spec.size|tostring) + " | " + .evidence')"
done
does="r2 drops every fragment that reaches it"
check kind_test_names_no_behaviour test "$(obs "$tmp/fw.db" 0 '(.lab_does // "none") + " " + (.path.nodes[2].does // "none")')" = "none none"
check kind_test_arrived_at_dst test "$(obs "$tmp/fw.db" 0 '[.path.events[] | select(.what == "arrived")] | length')" -eq 1
for i in $(seq 1 $((n - 1))); do
  check "test_${i}_names_the_firewall" test "$(obs "$tmp/fw.db" "$i" '.lab_does')" = "$does" \
    -a "$(obs "$tmp/fw.db" "$i" '.path.nodes[2].does')" = "drops fragments" \
    -a "$(obs "$tmp/fw.db" "$i" ".evidence | contains(\"$does\")")" = true
done
check udp_fragments_never_arrive test "$(obs "$tmp/fw.db" 1 '[.path.events[] | select(.what == "arrived")] | length')" -eq 0
check the_picture_ends_at_the_firewall test "$(obs "$tmp/fw.db" 1 '.path.events[-1] | "\(.node) \(.what) \(.seen_by)"')" = "2 dropped topology"
check tcp_gets_through test "$(obs "$tmp/fw.db" 4 '.fragmented.answer + " " + ([.path.events[] | select(.what == "arrived")] | length | tostring)')" = "no 1"
check serve_says_the_switch grep -Eq "^Lab scenarios: 1 lab switch \(0 rebuilt\), [0-9]+ ms on average" "$tmp/fw.db.out"
grep "^Lab scenarios" "$tmp/fw.db.out"
check lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0

# Another MTU is another lab: rebuilt between the tests, and the witness in
# dst follows (it reports the second test's arrival in the new lab).
cat >"$tmp/rebuild.json" <<'J'
{"title": "rebuild", "tests": [
  {"proto": "udp4", "mode": "dont", "size": 1400, "ask": ["fragmented"]},
  {"proto": "udp4", "mode": "dont", "size": 1400, "ask": ["fragmented"], "lab": {"routers": 3, "mtu": [1500, 1500, 1500, 1280]}}
]}
J
run_deck "$tmp/rebuild.json" "$tmp/rb.db"; rc=$?
check rebuild_exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/rb.db.out"
for i in 0 1; do echo "test $i: $(obs "$tmp/rb.db" "$i" '.evidence')"; done
check rebuild_switch_said grep -Eq "^Lab scenarios: 1 lab switch \(1 rebuilt\)" "$tmp/rb.db.out"
check rebuilt_lab_has_four_hops test "$(obs "$tmp/rb.db" 1 '.path.nodes | map(.name) | join(" ")')" = "src r1 r2 r3 dst"
check witness_follows_the_rebuild test "$(obs "$tmp/rb.db" 1 '.witness.heard')" = true
check lab_removed_after_rebuild test "$(ip netns list | grep -c "^$prefix-")" -eq 0

# Started with sudo, on a lab built beforehand (serve did not build it, so
# only the switching needs CAP_DAC_OVERRIDE after the drop: a rebuild
# creates namespaces under /run/netns): a three-router scenario with rate
# limits (sysctls) and a silent router (nft) is built as uid 65534 by the
# privileged helper, and the lab is put back as it was found at the end
# (another rebuild).
"$bin" lab up --prefix "$prefix" >/dev/null 2>&1
cat >"$tmp/drop.json" <<'J'
{"title": "drop", "tests": [
  {"proto": "udp4", "mode": "dont", "size": 1400, "ask": ["fragmented"], "lab": {"routers": 3, "ratelimit": ["r1"], "silent": ["r2"]}},
  {"proto": "udp4", "mode": "dont", "size": 1400, "ask": ["fragmented"]}
]}
J
chmod 0777 "$tmp"
(cd "$tmp" && SUDO_UID=65534 SUDO_GID=65534 FRAGVOTE_LAB_PREFIX=$prefix "$bin" serve --deck "$tmp/drop.json" \
   --db "$tmp/drop.db" --port 0 --bind 127.0.0.1 --no-qr --script "$tmp/talk.script" </dev/null >"$tmp/drop.out" 2>&1); rc=$?
check dropped_exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/drop.out"
# The switches run in serve's privileged helper (issue 36, item 11): it keeps
# what they need, the hub process keeps no capability.
check dropped_helper_keeps_dac grep -Eq "^Privileged helper \(pid [0-9]+\): now uid 65534, keeping only CAP_NET_RAW, CAP_NET_ADMIN, CAP_SYS_ADMIN and CAP_DAC_OVERRIDE" "$tmp/drop.out"
check dropped_hub_keeps_nothing grep -q "^Dropped root: now uid 65534, keeping no capability (the privileged helper" "$tmp/drop.out"
echo "test 0 after the drop: $(obs "$tmp/drop.db" 0 '.lab_does')"
check dropped_switch_applied test "$(obs "$tmp/drop.db" 0 '.lab_does')" = \
  "r1 keeps Linux's default ICMP rate limits (Time Exceeded to one host: a burst of 6, then 1 a second over IPv4); r2 sends no Time Exceeded"
check dropped_rebuilt_three_routers test "$(obs "$tmp/drop.db" 0 '.path.nodes | length')" -eq 5
check dropped_second_test_kind test "$(obs "$tmp/drop.db" 1 '(.lab_does // "none") + " " + (.path.nodes | length | tostring)')" = "none 4"
check lab_put_back sh -c "'$bin' lab status --prefix '$prefix' | grep -q 'mtu 1280\]- r2 -\[mtu 1500\]- dst.*reassembling router: none; probes expire'"
"$bin" lab down --prefix "$prefix" >/dev/null 2>&1
exit $fail
