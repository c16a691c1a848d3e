#!/usr/bin/env bash
# Started with sudo, serve builds the lab as root, then drops to the invoking
# user (SUDO_UID) before it creates the database or serves anyone — and the
# raw observer still measures on the lab, and the lab is still removed at the
# end. (sudo itself is not needed: serve only reads SUDO_UID/SUDO_GID.)
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab, the drop)"; exit 77; fi
prefix="fvq$$"
tmp=$(mktemp -d /tmp/fragvote-privdrop-XXXXXX)
chmod 0777 "$tmp"   # the dropped user creates the database here
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; "$bin" lab down --prefix "$prefix" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0 pass=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; pass=$((pass+1)); else echo "FAIL $name"; fail=$((fail+1)); fi; }

printf 'open\nclose\nmeasure\nwait-measured 20000\nreveal\nsleep 3000\nquit\n' >"$tmp/talk.script"
(cd "$tmp" && SUDO_UID=65534 SUDO_GID=65534 FRAGVOTE_LAB_PREFIX=$prefix exec "$bin" serve --db "$tmp/drop.db" \
   --port 0 --bind 127.0.0.1 --no-qr --observer raw --script "$tmp/talk.script" </dev/null >"$tmp/out" 2>&1) &
pid=$!
uid_seen=""
for _ in $(seq 1 100); do
  if grep -q "revealed" "$tmp/out" 2>/dev/null; then
    uid_seen=$(awk '/^Uid:/ {print $2, $3, $4}' /proc/$pid/status 2>/dev/null)
    caps=$(awk '/^CapEff:/ {print $2}' /proc/$pid/status 2>/dev/null)
    break
  fi
  sleep 0.1
done
wait "$pid"; rc=$?; pid=
echo "uid (real effective saved) while serving: $uid_seen; CapEff: ${caps:-?}"
check exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/out"
check says_it_dropped grep -q "Dropped root: now uid 65534" "$tmp/out"
check uid_is_not_root test "$uid_seen" = "65534 65534 65534"
# Only NET_ADMIN(12), NET_RAW(13), SYS_ADMIN(21) and DAC_OVERRIDE(1) remain.
check only_kept_caps test "${caps:-x}" = "0000000000203002"
check db_belongs_to_user test "$(stat -c %u "$tmp/drop.db")" = 65534
answer=$(sqlite3 "$tmp/drop.db" "SELECT answer || ' ' || basis || ' ' || observer FROM measurements LIMIT 1")
echo "measurement after the drop: $answer"
check measured_observed_raw test "$answer" = "yes observed raw"
check lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0
# --keep-root: no drop.
printf 'quit\n' >"$tmp/quit.script"
SUDO_UID=65534 SUDO_GID=65534 FRAGVOTE_LAB_PREFIX=$prefix "$bin" serve --keep-root --db "$tmp/keep.db" --port 0 \
  --bind 127.0.0.1 --no-qr --script "$tmp/quit.script" </dev/null >"$tmp/out2" 2>&1
check keep_root_does_not_drop sh -c "! grep -q 'Dropped root' '$tmp/out2' && test \"\$(stat -c %u '$tmp/keep.db')\" = 0"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
