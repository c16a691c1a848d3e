#!/usr/bin/env bash
# vote->ack through nginx against direct (issue 17): for each mode a fresh
# `fragvote serve` (libev, loopback, fresh SQLite file) and one fv_load run of
# PHONES phones (join, vote within WINDOW_MS, SQLite checked against the acks):
#   direct      phones -> serve, plain ws
#   direct-tls  phones -> serve --tls-cert, wss (TLS in serve itself)
#   nginx       phones -> nginx (the shipped deploy/nginx/fragvote.conf, wss,
#               self-signed) -> serve --trust-proxy 127.0.0.1, ws
# nginx runs on its own prefix (tests/deploy/nginx_fixture.sh), never the system
# service. Not a ctest test; results go to docs/BENCHMARKS.md "Through nginx".
# usage: tests/load/bench_proxy.sh [MODE ...]   (default: direct direct-tls nginx)
# env:   PHONES=5000 WINDOW_MS=2000 BUILD=build dir  OUT=raw output dir
#        IDLE_S=0 (everyone joined and silent this long before the vote: lets the join's
#        tally backlog drain, so the vote is measured alone)
#        NGINX_WORKERS=auto (nginx worker processes; auto is Debian's default)
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-${FRAGVOTE_BUILD:-$SRC/build}}
BIN=$BUILD/bin/fragvote
LOAD=$BUILD/tests/load/fv_load
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
PHONES=${PHONES:-5000}
WINDOW_MS=${WINDOW_MS:-2000}
IDLE_S=${IDLE_S:-0}
OUT=${OUT:-$(mktemp -d /tmp/fv-bench-proxy.XXXXXX)}
MODES=("$@")
[ ${#MODES[@]} -gt 0 ] || MODES=(direct direct-tls nginx)
SECRET=bench-presenter-secret
[ -x "$BIN" ] && [ -x "$LOAD" ] || { echo "build first: $BIN and $LOAD are needed" >&2; exit 2; }
. "$SRC/tests/deploy/nginx_fixture.sh"
mkdir -p "$OUT"
chmod 755 "$OUT"
SERVE_PID= nginx_pid=
stop_all() {
  [ -n "$nginx_pid" ] && { kill -QUIT "$nginx_pid" 2>/dev/null; wait "$nginx_pid" 2>/dev/null; nginx_pid=; }
  [ -n "$SERVE_PID" ] && { kill -TERM "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=; }
}
trap stop_all EXIT
trap 'exit 130' INT TERM
ulimit -n "$(ulimit -Hn)"
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat" 2>/dev/null || echo 0; }
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -keyout "$OUT/key.pem" -out "$OUT/cert.pem" \
  >/dev/null 2>&1 || { echo "openssl failed" >&2; exit 2; }
rev=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$SRC" diff --quiet HEAD -- fragvote db deploy 2>/dev/null || rev="$rev+uncommitted changes"
echo "# $(date -u +%FT%TZ) $(uname -sr), $(nproc) CPUs, $("$NGINX" -v 2>&1 | sed 's/.*: //'), source $rev; raw output in $OUT"
echo "idle before the vote: $IDLE_S s, window $WINDOW_MS ms"
echo "| mode | phones | load avg before | joined | acked | errors | SQLite votes | ack p50/p90/p99/max ms | tally p99 ms | server CPU s (connect/vote) | nginx CPU s | generator CPU s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
failed=0
run=0
for mode in "${MODES[@]}"; do
  run=$((run + 1))
  d=$OUT/$run-$mode
  mkdir -p "$d"
  : >"$d/empty.script"
  tls=()
  [ "$mode" = direct-tls ] && tls=(--tls-cert "$OUT/cert.pem" --tls-key "$OUT/key.pem")
  proxy=()
  [ "$mode" = nginx ] && proxy=(--trust-proxy 127.0.0.1)
  "$BIN" serve --db "$d/room.db" --port 0 --bind 127.0.0.1 --target 127.0.0.1 --no-prefetch --secret "$SECRET" \
    --no-qr --libev "${tls[@]}" "${proxy[@]}" --script "$d/empty.script" >"$d/serve.out" 2>"$d/serve.err" &
  SERVE_PID=$!
  up=
  for _ in $(seq 200); do
    up=$(sed -n 's|^Join: https\?://[^/]*:\([0-9]*\)/.*|\1|p' "$d/serve.out" 2>/dev/null | head -1)
    [ -n "$up" ] && break
    sleep 0.1
  done
  [ -n "$up" ] || { echo "| $mode | serve did not start: $(tail -c 200 "$d/serve.err") |"; failed=1; stop_all; continue; }
  port=$up gen_tls=()
  [ "$mode" != direct ] && gen_tls=(--tls)
  if [ "$mode" = nginx ]; then
    { read -r http; read -r port; } < <(free_ports 2)
    nginx_site "$SRC/deploy/nginx/fragvote.conf" "$d/site.conf" "$http" "$port" "$OUT/cert.pem" "$OUT/key.pem" "$up" ||
      exit 2
    NGINX_WORKERS=${NGINX_WORKERS:-auto} nginx_main "$d/nginx" $((PHONES * 2 + 1024)) "$d/site.conf"
    nginx_start "$NGINX" "$d/nginx" "$port" || { echo "| $mode | nginx did not start: $(tail -c 200 "$d/nginx/logs/error.log") |"; failed=1; stop_all; continue; }
  fi
  loadavg=$(cut -d' ' -f1-3 /proc/loadavg)
  ngx_workers=()
  [ -n "$nginx_pid" ] && mapfile -t ngx_workers < <(pgrep -P "$nginx_pid")
  ngx_cpu() { local t=0 w; for w in "${ngx_workers[@]}"; do t=$(awk -v a="$t" -v b="$(cpu_s "$w")" 'BEGIN{print a + b}'); done; echo "$t"; }
  ngx0=$(ngx_cpu)
  timeout $((240 + IDLE_S + WINDOW_MS / 1000)) "$LOAD" "${gen_tls[@]}" --port "$port" --secret "$SECRET" --db "$d/room.db" \
    --phones "$PHONES" --window-ms "$WINDOW_MS" --idle "$IDLE_S" --drain-ms 30000 --connect-timeout 180 --server-pid "$SERVE_PID" \
    --json "$d/run.json" -v >"$d/load.out" 2>"$d/load.err"
  rc=$?
  ngx1=$(ngx_cpu)
  stop_all
  [ $rc = 0 ] || failed=1
  if [ ! -s "$d/run.json" ]; then
    echo "| $mode | $PHONES | $loadavg | fv_load exit $rc: $(tail -c 200 "$d/load.err") |"
    continue
  fi
  ngx=$( [ ${#ngx_workers[@]} -gt 0 ] && awk -v a="$ngx0" -v b="$ngx1" 'BEGIN{printf "%.2f", b - a}' || echo "–")
  jq -r --arg mode "$mode" --arg la "$loadavg" --arg ngx "$ngx" '
    def f: . * 10 | round / 10;
    "| \($mode) | \(.phones // .joined) | \($la) | \(.joined) | \(.acked) | \(.errors) | \(.db_votes) | \(.ack_ms.p50|f) / \(.ack_ms.p90|f) / \(.ack_ms.p99|f) / \(.ack_ms.max|f) | \(.tally_ms.p99|f) | \((.srv_joined.cpu_s - .srv_base.cpu_s)*100|round/100) / \((.srv_end.cpu_s - .srv_idle.cpu_s)*100|round/100) | \($ngx) | \(.gen_cpu_s) |\(if .passed then "" else " **FAILED: \(.verdict)**" end)"
  ' "$d/run.json"
  sleep 2
done
exit $failed
