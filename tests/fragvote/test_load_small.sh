#!/usr/bin/env bash
# A small keynote room inside the test suite: a real `fragvote serve` on
# loopback with a real SQLite file, 500 phones from fv_load over 127.0.0.x,
# all voting within 2 s, then the wifi blips (--rejoin): every phone closes
# at once and comes back with its token. Asserts: every phone joined, every
# vote acked and seen in a tally, the screen saw them all, SQLite holds
# exactly the acked votes, no errors; after the storm every phone is back
# with the same token and its vote, SQLite has no new voter, a tally counts
# all 500 online. Then shows the checks can fail: a run checked against a
# copy of the database taken before the vote must report lost votes, and a
# storm whose phones forget their token must report new identities; both
# exit 1. The big runs are tests/load/bench.sh (not a test).
set -u
. "$(dirname "$0")/../support/lib.sh"
BIN=$bin
LOAD=${FRAGVOTE_BUILD:?FRAGVOTE_BUILD not set}/tests/load/fv_load
PHONES=${LOAD_PHONES:-500}
TMP=$(mktemp -d /tmp/fv-load-test.XXXXXX)
SERVE_PID=
fails=0

cleanup() {
    if [ -n "$SERVE_PID" ] && kill -0 "$SERVE_PID" 2>/dev/null; then
        kill -TERM "$SERVE_PID" 2>/dev/null
        wait "$SERVE_PID" 2>/dev/null
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT

jqe() { jq -e "$1" "$TMP/run.json" >/dev/null; }
check() { # check NAME CONDITION...
    local name=$1
    shift
    if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

[ -x "$LOAD" ] || { echo "fv_load not built at $LOAD"; exit 1; }
command -v jq >/dev/null || { echo "SKIP: jq missing (scripts/apt-packages.txt lists it)"; exit 77; }

# --- the command line ---
"$LOAD" --help >"$TMP/help" 2>"$TMP/help.err"; rc=$?
check "help exits 0 on stdout" test "$rc" = 0 -a -s "$TMP/help" -a ! -s "$TMP/help.err"
"$LOAD" --port 1 --secret x >/dev/null 2>"$TMP/err"; rc=$?
check "a missing --db is misuse (2) on stderr" test "$rc" = 2 -a -s "$TMP/err"
"$LOAD" --phones 0 --port 1 --secret x --db x >/dev/null 2>"$TMP/err"; rc=$?
check "bad phone count is misuse (2)" test "$rc" = 2 -a -s "$TMP/err"
"$LOAD" --host 192.0.2.1 --port 1 --secret x --db x >/dev/null 2>"$TMP/err"; rc=$?
check "a non-loopback host is refused (2)" test "$rc" = 2
check "  and says why" grep -q "127.0.0.0/8" "$TMP/err"
"$LOAD" --rejoin-spread-ms 100 --port 1 --secret x --db x >/dev/null 2>"$TMP/err"; rc=$?
check "--rejoin-spread-ms without --rejoin is misuse (2)" test "$rc" = 2 -a -s "$TMP/err"

# --- a real server on a free loopback port ---
: >"$TMP/empty.script"
"$BIN" serve --db "$TMP/room.db" --port 0 --bind 127.0.0.1 --target 127.0.0.1 --no-prefetch \
    --secret load-test-secret --no-qr --libev --script "$TMP/empty.script" >"$TMP/serve.out" 2>"$TMP/serve.err" &
SERVE_PID=$!
PORT=$(fv_join_port "$TMP/serve.out" "$SERVE_PID" 100)
if [ -z "$PORT" ]; then
    echo "serve did not start:"; cat "$TMP/serve.err"; exit 1
fi
echo "serve pid $SERVE_PID on port $PORT; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# A copy of the database before any vote: the lost-vote check must catch it.
sqlite3 "$TMP/room.db" ".backup '$TMP/before.db'"

# --- the run ---
"$LOAD" --port "$PORT" --secret load-test-secret --db "$TMP/room.db" --phones "$PHONES" --window-ms 2000 \
    --server-pid "$SERVE_PID" --rejoin --json "$TMP/run.json" >"$TMP/run.out" 2>&1; rc=$?
cat "$TMP/run.out"
check "fv_load passes (exit 0)" test "$rc" = 0
J() { jq -r "$1" "$TMP/run.json"; }
check "every phone joined" test "$(J .joined)" = "$PHONES"
check "every phone voted" test "$(J .voted)" = "$PHONES"
check "every vote acked" test "$(J .acked)" = "$PHONES"
check "every ack seen in a tally" test "$(J .tallied)" = "$PHONES"
check "no errors, no refusals" test "$(J .errors)/$(J .refused)" = "0/0"
check "zero lost votes: SQLite count == acks" test "$(J .db_votes)" = "$(J .acked)"
check "SQLite knows every voter" test "$(J .db_voters)" = "$PHONES"
check "the screen showed every vote" jqe '.screen_last_ms >= 0'
check "latencies measured for every vote" jqe ".ack_ms.n == $PHONES and .tally_ms.n == $PHONES and .ack_ms.max > 0"
check "the screen and the presenter counted every vote" jqe ".screen_ms.n == $PHONES and .presenter_ms.n == $PHONES"
# each ack carries the count with its vote (the exact screen measure); the
# bound that waits for every vote sent before the ack can only be later
check "every ack carried its count; the screen's exact latency is within the bound" \
    jqe ".screen_exact == 1 and .screen_sent_ms.n == $PHONES and .screen_ms.p99 <= .screen_sent_ms.p99 and .screen_ms.max <= .screen_sent_ms.max"
check "server sampled from /proc" jqe '.srv_joined.ok == 1 and .srv_end.rss_kb > 0'
# Independent of fv_load: count the rows ourselves.
q=$(J .question)
n=$(sqlite3 "$TMP/room.db" "SELECT count(*) FROM votes v JOIN questions q ON q.id = v.question_id
    WHERE q.position = $q AND q.session_id = (SELECT max(id) FROM sessions)")
check "sqlite3 CLI counts $PHONES votes" test "$n" = "$PHONES"
check "the question was closed by the presenter" test \
    "$(sqlite3 "$TMP/room.db" "SELECT state FROM questions WHERE position = $q AND session_id = (SELECT max(id) FROM sessions)")" = closed
# the reconnect storm
check "rejoin: every phone was closed at once" test "$(J .rejoin.phones)" = "$PHONES"
check "rejoin: every phone welcomed again" test "$(J .rejoin.back)" = "$PHONES"
check "rejoin: zero identity changes (same token)" test "$(J .rejoin.token_changed)" = 0
check "rejoin: every welcome shows the phone's vote" test "$(J .rejoin.votes_wrong)" = 0
check "rejoin: no errors" test "$(J .rejoin.errors)" = 0
check "rejoin: SQLite voters did not grow" jqe ".rejoin.db_voters == .db_voters and .rejoin.db_voters == $PHONES"
check "rejoin: SQLite votes unchanged" jqe '.rejoin.db_votes == .db_votes'
check "rejoin: a tally counted all phones online again" jqe ".rejoin.online_ms > 0 and .rejoin.online_end == $PHONES"
check "rejoin: close->welcome measured for every phone" jqe ".rejoin.welcome_ms.n == $PHONES and .rejoin.total_s > 0"
check "rejoin: server sampled for the phase" jqe '.rejoin.srv_start.ok == 1 and .rejoin.srv_end.ok == 1'
n=$(sqlite3 "$TMP/room.db" "SELECT count(*) FROM voters WHERE session_id = (SELECT max(id) FROM sessions)")
check "sqlite3 CLI counts $PHONES voters after the storm" test "$n" = "$PHONES"

# --- the join storm: 200 phones load the phone page and its resources over HTTP, then join ---
# the resources the phone page names (stylesheet, scripts), read from the page itself
NRES=$(grep -oE '(href|src)="/[^"]+"' "${FRAGVOTE_SRC:?}/audience-web/index.html" | sort -u | wc -l)
for mode in keep-alive close; do
    extra=()
    [ "$mode" = close ] && extra=(--storm-no-keepalive)
    "$LOAD" --port "$PORT" --secret load-test-secret --db "$TMP/room.db" --phones 200 --window-ms 300 --storm \
        "${extra[@]}" --json "$TMP/storm.json" >"$TMP/storm.out" 2>&1; rc=$?
    grep -E "storm|page load|QR|PASSED|FAILED" "$TMP/storm.out"
    S() { jq -r "$1" "$TMP/storm.json"; }
    check "storm ($mode): the run passes, every vote in SQLite" test "$rc" = 0 -a "$(S .db_votes)" = 200
    check "storm ($mode): every phone loaded the page and its $NRES resources first" \
        jq -e --argjson req $((200 * (NRES + 1))) \
        '.storm.pages == 200 and .storm.failed == 0 and .storm.errors == 0 and .storm.requests == $req' "$TMP/storm.json"
    check "storm ($mode): page load and QR->welcome measured per phone" \
        jq -e '.storm.page_ms.n == 200 and .storm.welcome_ms.n == 200 and .storm.all_joined_s > 0 and .storm.pages_s > 0' \
        "$TMP/storm.json"
done
"$LOAD" --port 1 --secret x --db x --storm-no-keepalive >/dev/null 2>"$TMP/err"; rc=$?
check "--storm-no-keepalive without --storm is misuse (2)" test "$rc" = 2 -a -s "$TMP/err"

# --- the check can fail: the next question, verified against the old copy ---
# (question 0 is closed now: fv_load's presenter skips to the next pending question)
"$LOAD" --port "$PORT" --secret load-test-secret --db "$TMP/before.db" --phones 50 --window-ms 300 \
    --json "$TMP/lost.json" >"$TMP/lost.out" 2>&1; rc=$?
cat "$TMP/lost.out"
check "votes missing from the database fail the run (exit 1)" test "$rc" = 1
check "  and the verdict says LOST VOTES" grep -q "LOST VOTES" "$TMP/lost.out"

# --- the identity check can fail: phones that come back without their token ---
"$LOAD" --port "$PORT" --secret load-test-secret --db "$TMP/room.db" --phones 50 --window-ms 300 --rejoin \
    --rejoin-forget-token --json "$TMP/forget.json" >"$TMP/forget.out" 2>&1; rc=$?
cat "$TMP/forget.out"
check "phones back without their token fail the run (exit 1)" test "$rc" = 1
check "  and the verdict says new identity" grep -q "FAILED: .*new identit" "$TMP/forget.out"
check "  every one counted; SQLite did not grow (a token that never votes is no voter)" jq -e '.rejoin.token_changed == 50 and .rejoin.db_voters == .db_voters' \
    "$TMP/forget.json"

kill -TERM "$SERVE_PID"
wait "$SERVE_PID"; src=$?
SERVE_PID=
check "serve ends cleanly on SIGTERM" test "$src" = 0 -o "$src" = 143
# the server's own view of the acks, printed as it ends (bench.sh's "hub ack" column)
grep "^Votes acked:" "$TMP/serve.out"
acks=$(sed -n 's/^Votes acked: \([0-9]*\); .* p50 [0-9.]* ms, p99 [0-9.]* ms, max [0-9.]* ms\.$/\1/p' "$TMP/serve.out")
check "serve reports how long its acks took, for at least the $PHONES votes" test "${acks:-0}" -ge "$PHONES"
[ "$fails" = 0 ] && echo "all checks passed" || echo "$fails checks failed"
exit $((fails > 0))
