#!/usr/bin/env bash
# fragvote serve builds the namespace lab when no target is given and removes
# it on SIGTERM and SIGINT; the session is stamped as ended.
set -u
. "$(dirname "$0")/../support/lib.sh"
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab)"; exit 77; fi
prefix="fvs$$"
tmp=$(mktemp -d /tmp/fragvote-serve-sig-XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  "$bin" lab down --prefix "$prefix" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
ns_count() { ip netns list | grep -c "^$prefix-" ; }

for sig in TERM INT; do
  db="$tmp/$sig.db"
  FRAGVOTE_LAB_PREFIX=$prefix "$bin" serve --db "$db" --port 0 --bind 127.0.0.1 --no-qr \
    </dev/null >"$tmp/$sig.out" 2>&1 &
  pid=$!
  port=$(fv_join_port "$tmp/$sig.out" "$pid")
  check "${sig}_listening" test -n "$port"
  check "${sig}_lab_up" test "$(ns_count)" -eq 4
  if [ -n "$port" ]; then
    check "${sig}_serves_http" bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && printf 'GET / HTTP/1.0\r\n\r\n' >&3 && head -1 <&3 | grep -q ' 200 '"
  fi
  kill -"$sig" "$pid"
  rc=
  for _ in $(seq 1 100); do
    if ! kill -0 "$pid" 2>/dev/null; then wait "$pid"; rc=$?; break; fi
    sleep 0.1
  done
  pid_was=$pid
  [ -z "$rc" ] && { kill -9 "$pid_was"; wait "$pid_was"; rc=killed; }
  pid=
  check "${sig}_exits_0" test "$rc" = 0
  check "${sig}_lab_removed" test "$(ns_count)" -eq 0
  check "${sig}_says_signal" grep -q "stopped by signal" "$tmp/$sig.out"
  ended=$(sqlite3 "$db" "SELECT ended_at IS NOT NULL FROM sessions" 2>/dev/null || echo "?")
  check "${sig}_session_ended" test "$ended" = 1
  lab=$(sqlite3 "$db" "SELECT lab FROM sessions" 2>/dev/null || echo "")
  check "${sig}_lab_recorded" grep -q "\"prefix\":\"$prefix\"" <<<"$lab"
  [ $fail -ne 0 ] && cat "$tmp/$sig.out"
done

# A lab built by hand is used as it is and left up.
"$bin" lab up --prefix "$prefix" --mtu 1500,1400,1500 >/dev/null 2>&1
check own_lab_up test "$(ns_count)" -eq 4
FRAGVOTE_LAB_PREFIX=$prefix "$bin" serve --db "$tmp/own.db" --port 0 --bind 127.0.0.1 --no-qr \
  </dev/null >"$tmp/own.out" 2>&1 &
pid=$!
fv_join_port "$tmp/own.out" "$pid" 100 >/dev/null
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
check own_lab_exits_0 test "$rc" -eq 0
check own_lab_said_so grep -q 'Using the running lab' "$tmp/own.out"
check own_lab_left_up test "$(ns_count)" -eq 4
check own_lab_topology_recorded grep -q '"mtu":1400' <<<"$(sqlite3 "$tmp/own.db" "SELECT lab FROM sessions")"
"$bin" lab down --prefix "$prefix" >/dev/null 2>&1
check own_lab_down test "$(ns_count)" -eq 0
exit $fail
