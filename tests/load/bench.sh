#!/usr/bin/env bash
# The keynote-room benchmark (issue 10): for each room size, a fresh
# `fragvote serve` (libev loop, loopback only, fresh SQLite file) and one
# fv_load run: all phones join, hold IDLE_S seconds, vote within WINDOW_MS,
# SQLite is checked against the acks. Not a ctest test (big, slow, and the
# numbers depend on how busy the machine is); results go to
# docs/BENCHMARKS.md "Load: keynote room".
#
# usage: tests/load/bench.sh [PHONES ...]        (default: 1000 5000 10000 19880: with a 20,000-descriptor
#        limit the hub takes 19,894 phones, keeping 32 places for screens and presenters)
# env:   BUILD=build dir (default: $FRAGVOTE_BUILD or ./build)
#        WINDOW_MS=2000  IDLE_S=0 (idle hold before voting; IDLE_TOP_S=70 for runs >= 19000: longer than
#        the hub's 60 s idle hang-up, so only keepalive pings keep the phones)
#        OUT=directory for the raw outputs (default: a new /tmp/fv-bench.XXXXXX)
#        PERF=1 records `perf record -g` of the server during each run (needs perf)
#        POLL=1 runs the server with lws's poll() loop instead of libev
#        PIN=1 pins the server to CPU 0 and the generator to CPU 1 (taskset)
#        MEM=1G runs the server in a memory cgroup of that size (with PIN=1: the one-core, 1 GB VM)
#        The column "hub µs per vote" is issue 38's headline: the server's own CPU (/proc, all its
#        threads) from just before the open to the close, over the votes it acknowledged
#        REJOIN=1 adds the reconnect storm after the vote (fv_load --rejoin; REJOIN_SPREAD_MS=0 by
#        default: all at once) and a last column "rejoin s / p99 ms" (mass close -> all phones
#        welcomed again / per-phone close->welcome p99); without it the table is unchanged
#        INFLIGHT=N caps the handshakes (and the storm's page loads) in flight (fv_load --inflight; default
#        256). A process may hold 20,000 descriptors on the reference machine, both ends alike: 19,900
#        websockets leave the pages ~50 at the end of a full-size storm, so run STORM at 19,900 with INFLIGHT=32
#        STORM=1 makes the connect phase a join storm (fv_load --storm: each phone loads the phone page
#        and its resources over HTTP with keep-alive, then joins), STORM=close the same with one
#        connection per request; adds a last column "storm pages/s · page p99 ms · QR→welcome p99 ms ·
#        all joined s"
# Prints one Markdown table row per run; exits 1 if any run failed (lost or
# unacknowledged votes, errors).
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-${FRAGVOTE_BUILD:-$SRC/build}}
BIN=$BUILD/bin/fragvote
LOAD=$BUILD/tests/load/fv_load
WINDOW_MS=${WINDOW_MS:-2000}
IDLE_S=${IDLE_S:-0}
IDLE_TOP_S=${IDLE_TOP_S:-70}
OUT=${OUT:-$(mktemp -d /tmp/fv-bench.XXXXXX)}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000 5000 10000 19880)
SECRET=bench-presenter-secret
REJOIN=${REJOIN:-0}
REJOIN_SPREAD_MS=${REJOIN_SPREAD_MS:-0}
rejoin_args=() rejoin_col= rejoin_sep= rejoin_s=0
if [ "$REJOIN" = 1 ]; then
    rejoin_args=(--rejoin --rejoin-spread-ms "$REJOIN_SPREAD_MS")
    rejoin_col=" rejoin s / p99 ms |" rejoin_sep="---|" rejoin_s=$((210 + REJOIN_SPREAD_MS / 1000))
fi
STORM=${STORM:-0}
storm_args=() storm_col= storm_sep=
if [ "$STORM" != 0 ]; then
    storm_args=(--storm)
    [ "$STORM" = close ] && storm_args+=(--storm-no-keepalive)
    storm_col=" storm ($([ "$STORM" = close ] && echo "no keep-alive" || echo keep-alive)) pages/s · page p99 ms · QR→welcome p99 ms · all joined s |" storm_sep="---|"
fi
SERVE_PID=
PERF_PID=

[ -x "$BIN" ] && [ -x "$LOAD" ] || { echo "build first: $BIN and $LOAD are needed" >&2; exit 2; }
mkdir -p "$OUT"

# MEM=1G: the server runs in a memory cgroup of that size (the smallest VM's RAM): cgroup v2's
# memory.max when this machine delegates it, else v1's memory.limit_in_bytes; no cgroup, no run.
memcg_run() {
    local max=$1 cg
    shift
    for cg in /sys/fs/cgroup/fv-bench.$$ /sys/fs/cgroup/memory/fv-bench.$$; do # v2, then v1
        mkdir "$cg" 2>/dev/null || continue
        [ -e "$cg/cgroup.procs" ] || { rmdir "$cg"; continue; } # a plain directory: no cgroup file system there
        if echo "$max" >"$cg/memory.max" 2>/dev/null || echo "$max" >"$cg/memory.limit_in_bytes" 2>/dev/null; then
            echo "$BASHPID" >"$cg/cgroup.procs" && exec "$@"
        fi
        rmdir "$cg" 2>/dev/null
    done
    echo "MEM=$max: no memory cgroup could be made here" >&2
    exit 2
}
memcg_clean() { rmdir /sys/fs/cgroup/fv-bench.$$ /sys/fs/cgroup/memory/fv-bench.$$ 2>/dev/null; }

stop_all() {
    if [ -n "$PERF_PID" ]; then kill -INT "$PERF_PID" 2>/dev/null; wait "$PERF_PID" 2>/dev/null; PERF_PID=; fi
    if [ -n "$SERVE_PID" ]; then kill -TERM "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=; fi
    memcg_clean
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# Both processes may hold ~20,000 sockets: the soft limit up to the hard one.
ulimit -n "$(ulimit -Hn)"

if rev=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null); then
    git -C "$SRC" diff --quiet HEAD -- fragvote db || rev="$rev+uncommitted changes in fragvote/ or db/"
else
    rev="not a git checkout ($(cat "$SRC/REV" 2>/dev/null || echo unknown))"
fi
echo "# $(date -u +%FT%TZ) $(uname -sr), $(nproc) CPUs, open files $(ulimit -n), source $rev; raw output in $OUT"
echo "| phones | load avg before | joined | acked | errors | SQLite votes | ack p50/p90/p99/max ms | hub ack p50/p99/max ms | tally p50/p90/p99/max ms | screen per vote p50/p99/max ms [p99 counting every vote sent before the ack] | presenter per vote p99 ms | screen after last vote ms | server RSS kB (base→joined) | KB/conn | server CPU s (connect/vote) | **hub µs per vote** | generator CPU s | open/close cmd ms | tallies rx (connect/vote) |$rejoin_col$storm_col"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|$rejoin_sep$storm_sep"
failed=0
for n in "${SIZES[@]}"; do
    d=$OUT/$n
    mkdir -p "$d"
    : >"$d/empty.script"
    idle=$IDLE_S
    [ "$n" -ge 19000 ] && idle=$IDLE_TOP_S
    loop=--libev
    [ "${POLL:-0}" = 1 ] && loop=--poll
    pin_srv=() pin_gen=()
    [ "${PIN:-0}" = 1 ] && pin_srv=(taskset -c 0) && pin_gen=(taskset -c 1)
    [ -n "${MEM:-}" ] && pin_srv=(memcg_run "$MEM" "${pin_srv[@]}")
    "${pin_srv[@]}" "$BIN" serve --db "$d/room.db" --port 0 --bind 127.0.0.1 --target 127.0.0.1 --no-prefetch --secret "$SECRET" \
        --no-qr $loop --script "$d/empty.script" >"$d/serve.out" 2>"$d/serve.err" &
    SERVE_PID=$!
    port=
    for _ in $(seq 200); do
        port=$(sed -n 's|^Join: http://[^/]*:\([0-9]*\)/.*|\1|p' "$d/serve.out" 2>/dev/null | head -1)
        [ -n "$port" ] && break
        kill -0 "$SERVE_PID" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        echo "| $n | serve did not start: $(head -c 200 "$d/serve.err") |"
        failed=1
        stop_all
        continue
    fi
    if [ "${PERF:-0}" = 1 ]; then
        perf record -g -o "$d/perf.data" -p "$SERVE_PID" >"$d/perf.log" 2>&1 &
        PERF_PID=$!
    fi
    loadavg=$(cut -d' ' -f1-3 /proc/loadavg)
    # Bounded: connect within 180 s, idle hold, window, 30 s to drain (+ the storm: 180 s, spread, 30 s).
    "${pin_gen[@]}" timeout $((240 + idle + WINDOW_MS / 1000 + rejoin_s)) "$LOAD" --port "$port" --secret "$SECRET" \
        --db "$d/room.db" --phones "$n" --window-ms "$WINDOW_MS" --idle "$idle" --drain-ms 30000 --connect-timeout 180 \
        ${INFLIGHT:+--inflight "$INFLIGHT"} "${rejoin_args[@]}" "${storm_args[@]}" --server-pid "$SERVE_PID" --json "$d/run.json" --csv "$d/votes.csv" -v >"$d/load.out" \
        2>"$d/load.err"
    rc=$?
    stop_all
    if [ "${PERF:-0}" = 1 ] && [ -s "$d/perf.data" ]; then
        perf report -i "$d/perf.data" --no-children --percent-limit 1 --stdio >"$d/perf.txt" 2>/dev/null
    fi
    [ $rc = 0 ] || failed=1
    if [ ! -s "$d/run.json" ]; then
        echo "| $n | $loadavg | fv_load exit $rc: $(tail -c 200 "$d/load.err") |"
        continue
    fi
    # the server's own view of the same acks: from reading a vote to writing its ack (serve prints it as it ends)
    huback=$(sed -n 's/^Votes acked: .*: p50 \([0-9.]*\) ms, p99 \([0-9.]*\) ms, max \([0-9.]*\) ms\..*/\1 \/ \2 \/ \3/p' "$d/serve.out")
    jq -r --arg n "$n" --arg la "$loadavg" --arg huback "${huback:-–}" --arg idle "$idle" --arg rejoin "$REJOIN" --arg storm "$STORM" '
        def f: . * 10 | round / 10;
        def lat: "\(.p50|f) / \(.p90|f) / \(.p99|f) / \(.max|f)";
        "| \($n)\(if ($idle|tonumber) > 0 then " (idle \($idle) s)" else "" end) | \($la) | \(.joined) | \(.acked) | \(.errors) | \(.db_votes) | \(.ack_ms|lat) | \($huback) | \(.tally_ms|lat) | \(.screen_ms.p50|f) / \(.screen_ms.p99|f) / \(.screen_ms.max|f)\(if .screen_exact == 1 then " [\(.screen_sent_ms.p99|f)]" else " (acks without a count)" end) | \(.presenter_ms.p99|f) | \(.screen_last_ms|f) | \(.srv_base.rss_kb) → \(.srv_joined.rss_kb) | \(.kb_per_conn*100|round/100) | \((.srv_joined.cpu_s - .srv_base.cpu_s)*100|round/100) / \((.srv_end.cpu_s - .srv_idle.cpu_s)*100|round/100) | **\(.hub_us_per_vote|f)** | \(.gen_cpu_s) | \(.open_ms|f) / \(.close_ms|f) | \(.rx_tally[0]) / \(.rx_tally[1]) |\(if $rejoin != "1" then "" elif .rejoin == null then " – |" else " \(.rejoin.total_s * 100 | round / 100) / \(.rejoin.welcome_ms.p99|f) |" end)\(if $storm == "0" then "" elif .storm == null then " – |" else " \(.storm.pages_s|round) · \(.storm.page_ms.p99|f) · \(.storm.welcome_ms.p99|f) · \(.storm.all_joined_s * 100 | round / 100) |" end)\(if .passed then "" else " **FAILED: \(.verdict)**" end)"
    ' "$d/run.json"
    sleep 2 # let the sockets of this run leave the machine before the next one
done
exit $failed
