#!/usr/bin/env bash
# Started with sudo, serve builds the lab as root, then drops to the invoking
# user (SUDO_UID) before it creates the database or serves anyone — and the
# raw observer still measures on the lab, and the lab is still removed at the
# end. (sudo itself is not needed: serve only reads SUDO_UID/SUDO_GID.)
# Started as root by doas (DOAS_USER), pkexec (PKEXEC_UID) or with --user NAME
# and no SUDO_UID, serve and present drop the same way (issue 36, item 10):
# /proc/PID/status of the running process shows the user's uid and only the
# probe's capabilities.
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

# No SUDO_UID: the user from DOAS_USER (a name), PKEXEC_UID or --user.
# running_ids OUT CMD...: starts CMD as root without SUDO_*, reads Uid and
# CapEff of the running process once it listens, then quits it.
running_ids() {
  local out=$1; shift
  printf 'sleep 30000\nquit\n' >"$tmp/long.script"
  (cd "$tmp" && exec env -u SUDO_UID -u SUDO_GID -u DOAS_USER -u PKEXEC_UID "$@" </dev/null >"$out" 2>&1) &
  local p=$! ids=""
  for _ in $(seq 1 100); do
    if grep -q "^Join: \|^Connecting to " "$out" 2>/dev/null; then
      ids="$(awk '/^Uid:/ {print $2, $3, $4}' /proc/$p/status 2>/dev/null) $(awk '/^CapEff:/ {print $2}' /proc/$p/status 2>/dev/null)"
      break
    fi
    sleep 0.1
  done
  kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null
  echo "$ids"
}
nob=$(id -u nobody)
serve_local=("$bin" serve --target 127.0.0.1 --observer raw --port 0 --bind 127.0.0.1 --no-qr --script "$tmp/long.script")
# Without a lab: NET_ADMIN(12) and NET_RAW(13) only.
ids=$(running_ids "$tmp/doas.out" env DOAS_USER=nobody "${serve_local[@]}" --db "$tmp/doas.db")
echo "DOAS_USER=nobody: uid and CapEff while serving: $ids"
check doas_user_dropped test "$ids" = "$nob $nob $nob 0000000000003000"
check doas_user_says_so grep -q "Dropped root: now uid $nob, .*(from DOAS_USER nobody)" "$tmp/doas.out"
ids=$(running_ids "$tmp/pkexec.out" env PKEXEC_UID="$nob" "${serve_local[@]}" --db "$tmp/pkexec.db")
echo "PKEXEC_UID=$nob: $ids"
check pkexec_uid_dropped test "$ids" = "$nob $nob $nob 0000000000003000"
ids=$(running_ids "$tmp/user.out" "${serve_local[@]}" --user nobody --db "$tmp/user.db")
echo "--user nobody: $ids"
check user_option_dropped test "$ids" = "$nob $nob $nob 0000000000003000"
check user_option_db_belongs_to_user test "$(stat -c %u "$tmp/user.db")" = "$nob"
# A hosted hub (--prober remote) keeps no capability at all.
ids=$(running_ids "$tmp/remote.out" env DOAS_USER=nobody "$bin" serve --prober remote --port 0 --bind 127.0.0.1 \
  --no-qr --script "$tmp/long.script" --db "$tmp/remote.db")
echo "--prober remote, DOAS_USER=nobody: $ids"
check remote_hub_dropped_all test "$ids" = "$nob $nob $nob 0000000000000000"
# present (the laptop) drops the same way: to a hub that --keep-root serves here.
printf '%s\n' "privdrop-presenter-secret" >"$tmp/secret"
(cd "$tmp" && exec "$bin" serve --prober remote --keep-root --port 0 --bind 127.0.0.1 --no-qr --secret-file "$tmp/secret" \
   --script "$tmp/long.script" --db "$tmp/hub.db" </dev/null >"$tmp/hub.out" 2>&1) &
hub=$!
hubport=
for _ in $(seq 1 100); do
  hubport=$(sed -n 's#^Join: http://127.0.0.1:\([0-9]*\)/.*#\1#p' "$tmp/hub.out" 2>/dev/null)
  [ -n "$hubport" ] && break
  sleep 0.1
done
ids=$(running_ids "$tmp/present.out" env PKEXEC_UID="$nob" "$bin" present "ws://127.0.0.1:$hubport/" --target 127.0.0.1 \
  --observer raw --secret-file "$tmp/secret" --script "$tmp/long.script")
echo "present, PKEXEC_UID=$nob: $ids"
check present_dropped test "$ids" = "$nob $nob $nob 0000000000003000"
kill -TERM "$hub" 2>/dev/null; wait "$hub" 2>/dev/null
# --user names a user that does not exist: refused, nothing served.
env -u SUDO_UID "${serve_local[@]}" --user no-such-user-fv --db "$tmp/nouser.db" >"$tmp/nouser.out" 2>&1; rc=$?
check unknown_user_refused test "$rc" -eq 3
check unknown_user_named grep -q "no-such-user-fv: no such user" "$tmp/nouser.out"
# --user with --keep-root contradict each other: usage.
"${serve_local[@]}" --user nobody --keep-root --db "$tmp/both.db" >/dev/null 2>&1; rc=$?
check user_and_keep_root_usage test "$rc" -eq 2
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
