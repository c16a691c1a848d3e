#!/usr/bin/env bash
# Started with sudo, serve forks its privileged helper, which builds the lab
# and drops to the invoking user (SUDO_UID) keeping only what the probe
# needs, while the hub process (the one that listens and parses every
# phone) drops to the same user keeping no capability at all (issue 36,
# item 11), before it creates the database or serves anyone — and the raw
# observer still measures on the lab, the same answers as one root process
# measures, and the lab is still removed at the end, also when serve is
# killed with SIGKILL (the helper sees its socket close). A helper killed
# mid-talk is said on the console and the measurement answers "unknown".
# (sudo itself is not needed: serve only reads SUDO_UID/SUDO_GID.)
# Started as root by doas (DOAS_USER), pkexec (PKEXEC_UID) or with --user NAME
# and no SUDO_UID, serve and present drop the same way (issue 36, item 10):
# /proc/PID/status of the running hub shows the user's uid and no
# capability, its helper's the user's uid and only the probe's capabilities;
# from a root shell with none of these both become nobody: the hub opens
# every file it uses first (its database root's, in a 0700 directory of
# root's), and cannot write a file root owns, and serves the pages from a
# 0700 directory of root's (the pages' directory opened first too);
# present there too, its
# --export written into root's directory through a descriptor opened before.
# present started as root measures through its own privileged helper (issue
# 36, item 11): on the lab its process that reads the hub's frames has uid
# 65534 and nothing in CapEff, CapPrm, CapInh or CapAmb, its helper the
# probe's four; it measures what one --keep-root present measures, takes the
# lab down, and a helper killed is said and answers "unknown".
set -u
. "$(dirname "$0")/../support/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab, the drop)"; exit 77; fi
prefix="fvq$$"
tmp=$(mktemp -d /tmp/fragvote-privdrop-XXXXXX)
chmod 0777 "$tmp"   # the dropped user creates the database here
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; "$bin" lab down --prefix "$prefix" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0 pass=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; pass=$((pass+1)); else echo "FAIL $name"; fail=$((fail+1)); fi; }
ids_of() { echo "$(awk '/^Uid:/ {print $2, $3, $4}' /proc/$1/status 2>/dev/null) $(awk '/^CapEff:/ {print $2}' /proc/$1/status 2>/dev/null)"; }
helper_of() { cat /proc/$1/task/*/children 2>/dev/null | tr ' ' '\n' | grep -m1 .; }
# The pid that holds the listening socket on port $1.
listener_of() { ss -Hltnp "sport = :$1" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\),.*/\1/p' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

talk() { # N: open, close, measure, reveal N questions
  for _ in $(seq 1 "$1"); do printf 'open\nclose\nmeasure\nwait-measured 20000\nreveal\nnext\n'; done
  printf 'sleep 3000\nquit\n'
}
talk 4 >"$tmp/talk.script"
(cd "$tmp" && SUDO_UID=65534 SUDO_GID=65534 FRAGVOTE_LAB_PREFIX=$prefix exec "$bin" serve --db "$tmp/drop.db" \
   --port 0 --bind 127.0.0.1 --no-qr --observer raw --script "$tmp/talk.script" </dev/null >"$tmp/out" 2>&1) &
pid=$!
hub_ids="" helper_ids="" helper="" listener=""
for _ in $(seq 1 200); do
  if [ "$(grep -c "revealed" "$tmp/out" 2>/dev/null)" -ge 4 ]; then
    hub_ids=$(ids_of "$pid")
    helper=$(helper_of "$pid")
    [ -n "$helper" ] && helper_ids=$(ids_of "$helper")
    port=$(fv_join_port "$tmp/out" "$pid" 1)
    listener=$(listener_of "$port")
    break
  fi
  sleep 0.1
done
wait "$pid"; rc=$?; pid=
echo "hub (pid listening: $listener) uid and CapEff while serving: $hub_ids; its helper ($helper): $helper_ids"
check exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/out"
check says_it_dropped grep -q "^Dropped root: now uid 65534, keeping no capability (the privileged helper" "$tmp/out"
check helper_says_it_dropped grep -Eq "^Privileged helper \(pid $helper\): now uid 65534, keeping only CAP_NET_RAW" "$tmp/out"
check hub_is_not_root_and_has_no_capability test "$hub_ids" = "65534 65534 65534 0000000000000000"
check hub_holds_the_listening_socket test -n "$listener" -a "$listener" != "$helper"
# The helper keeps NET_ADMIN(12), NET_RAW(13), SYS_ADMIN(21) and DAC_OVERRIDE(1), nothing else.
check helper_keeps_only_the_probes_caps test "$helper_ids" = "65534 65534 65534 0000000000203002"
check db_belongs_to_user test "$(stat -c %u "$tmp/drop.db")" = 65534
answer=$(sqlite3 "$tmp/drop.db" "SELECT answer || ' ' || basis || ' ' || observer FROM measurements LIMIT 1")
echo "measurement after the drop: $answer"
check measured_observed_raw test "$answer" = "yes observed raw"
check lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0
# The same talk in one root process (--keep-root: the engine in the hub, as
# before the helper): the same answers, bases and observer, question by question.
facts() { sqlite3 "$1" "SELECT q.position || ' ' || m.answer || ' ' || m.basis || ' ' || m.observer
                        FROM measurements m JOIN questions q ON q.id = m.question_id ORDER BY q.position"; }
(cd "$tmp" && FRAGVOTE_LAB_PREFIX=$prefix exec "$bin" serve --keep-root --db "$tmp/one.db" --port 0 --bind 127.0.0.1 \
   --no-qr --observer raw --script "$tmp/talk.script" </dev/null >"$tmp/one.out" 2>&1)
echo "through the helper:"; facts "$tmp/drop.db"
echo "in one root process:"; facts "$tmp/one.db"
check four_measured test "$(facts "$tmp/drop.db" | wc -l)" -eq 4
check helper_measures_what_one_process_measured test "$(facts "$tmp/drop.db")" = "$(facts "$tmp/one.db")"

# sudo_serve NAME SCRIPT: serve on the lab as SUDO_UID 65534 in the background
# ($pid), its database $tmp/NAME.db, its output $tmp/NAME.out; once it
# listens, its helper's pid in $helper.
sudo_serve() {
  (cd "$tmp" && SUDO_UID=65534 SUDO_GID=65534 FRAGVOTE_LAB_PREFIX=$prefix exec ${launcher:-} "$bin" serve --db "$tmp/$1.db" \
     --port 0 --bind 127.0.0.1 --no-qr --script "$2" </dev/null >"$tmp/$1.out" 2>&1) &
  pid=$!
  fv_join_port "$tmp/$1.out" "$pid" >/dev/null
  helper=$(helper_of "$pid")
}
# serve killed with SIGKILL: the helper sees its socket close and takes the lab down.
printf 'sleep 60000\nquit\n' >"$tmp/long.script"
sudo_serve kill "$tmp/long.script"
check lab_up_while_serving test "$(ip netns list | grep -c "^$prefix-")" -gt 0
kill -KILL "$pid"; wait "$pid" 2>/dev/null; pid=
for _ in $(seq 1 150); do
  [ "$(ip netns list | grep -c "^$prefix-")" -eq 0 ] && ! kill -0 "$helper" 2>/dev/null && break
  sleep 0.1
done
check sigkill_lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0
check sigkill_helper_gone sh -c "test -n '$helper' && ! kill -0 '$helper' 2>/dev/null"
check sigkill_helper_says_why grep -q "the hub process has gone; the privileged helper takes the lab down" "$tmp/kill.out"

# Ctrl-C at a terminal: SIGINT to serve's whole process group (its own,
# setsid), the helper included. The helper ignores it; serve ends, the lab goes.
launcher=setsid sudo_serve ctrlc "$tmp/long.script"
kill -INT -- "-$pid"; wait "$pid"; rc=$?; pid=
check ctrl_c_serve_exit_0 test "$rc" -eq 0
check ctrl_c_helper_gone sh -c "test -n '$helper' && ! kill -0 '$helper' 2>/dev/null"
check ctrl_c_lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0

# The helper killed mid-talk: the console says so, the measurement is "unknown", serve ends normally.
printf 'sleep 4000\nopen\nclose\nmeasure\nwait-measured 20000\nreveal\nquit\n' >"$tmp/dead.script"
sudo_serve dead "$tmp/dead.script"
[ -n "$helper" ] && kill -KILL "$helper"
t0=$(date +%s)
wait "$pid"; rc=$?; pid=
check dead_helper_serve_exit_0 test "$rc" -eq 0 -a $(( $(date +%s) - t0 )) -lt 30
check dead_helper_said grep -q "the privileged helper (pid $helper) was killed by signal 9: every measurement from now on answers \"unknown\"" "$tmp/dead.out"
answer=$(sqlite3 "$tmp/dead.db" "SELECT answer || ' ' || basis FROM measurements LIMIT 1")
echo "measurement with the helper dead: $answer"
check dead_helper_answers_unknown test "$answer" = "unknown unknown"
"$bin" lab down --prefix "$prefix" >/dev/null 2>&1   # a killed helper could not take it down,
rm -f "/run/fragvote-lab-$prefix.lock"                # nor remove its lock (engine_helper.c)

# --keep-root: no drop.
printf 'quit\n' >"$tmp/quit.script"
SUDO_UID=65534 SUDO_GID=65534 FRAGVOTE_LAB_PREFIX=$prefix "$bin" serve --keep-root --db "$tmp/keep.db" --port 0 \
  --bind 127.0.0.1 --no-qr --script "$tmp/quit.script" </dev/null >"$tmp/out2" 2>&1
check keep_root_does_not_drop sh -c "! grep -q 'Dropped root' '$tmp/out2' && test \"\$(stat -c %u '$tmp/keep.db')\" = 0"

# No SUDO_UID: the user from DOAS_USER (a name), PKEXEC_UID or --user.
# running_ids OUT CMD...: starts CMD as root without SUDO_*, reads Uid and
# CapEff of the running process once it listens, and of its helper (after
# "|"), then quits it.
running_ids() {
  local out=$1; shift
  printf 'sleep 30000\nquit\n' >"$tmp/long.script"
  (cd "$tmp" && exec env -u SUDO_UID -u SUDO_GID -u DOAS_USER -u PKEXEC_UID "$@" </dev/null >"$out" 2>&1) &
  local p=$! ids="" h=""
  for _ in $(seq 1 100); do
    if grep -q "^Join: \|^Connecting to " "$out" 2>/dev/null; then
      h=$(helper_of "$p")
      ids="$(ids_of "$p")"
      awk '/^CapBnd:/ {print $2}' /proc/$p/status >"$out.capbnd" 2>/dev/null
      [ -n "$h" ] && ids="$ids | $(ids_of "$h")"
      break
    fi
    sleep 0.1
  done
  kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null
  echo "$ids"
}
nob=$(id -u nobody)
serve_local=("$bin" serve --target 127.0.0.1 --observer raw --port 0 --bind 127.0.0.1 --no-qr --script "$tmp/long.script")
# Without a lab: the hub no capability, the helper NET_ADMIN(12) and NET_RAW(13) only.
ids=$(running_ids "$tmp/doas.out" env DOAS_USER=nobody "${serve_local[@]}" --db "$tmp/doas.db")
echo "DOAS_USER=nobody: uid and CapEff while serving: $ids"
check doas_user_dropped test "$ids" = "$nob $nob $nob 0000000000000000 | $nob $nob $nob 0000000000003000"
check doas_user_says_so grep -q "Dropped root: now uid $nob, .*(from DOAS_USER nobody)" "$tmp/doas.out"
ids=$(running_ids "$tmp/pkexec.out" env PKEXEC_UID="$nob" "${serve_local[@]}" --db "$tmp/pkexec.db")
echo "PKEXEC_UID=$nob: $ids"
check pkexec_uid_dropped test "$ids" = "$nob $nob $nob 0000000000000000 | $nob $nob $nob 0000000000003000"
ids=$(running_ids "$tmp/user.out" "${serve_local[@]}" --user nobody --db "$tmp/user.db")
echo "--user nobody: $ids"
check user_option_dropped test "$ids" = "$nob $nob $nob 0000000000000000 | $nob $nob $nob 0000000000003000"
check user_option_db_belongs_to_user test "$(stat -c %u "$tmp/user.db")" = "$nob"
# A root shell (none of them, no --user; issue 36, item 10): the hub opens
# every file it uses (the database with all its connections, its -wal and
# -shm, the script) and then becomes nobody; the helper becomes nobody too.
# A whole talk with phones then works with the database root's own, in a
# 0700 directory of root's, and the hub cannot write a file root owns.
rootdir=$(mktemp -d /tmp/fragvote-rootonly-XXXXXX)   # 0700, root's
trap 'cleanup; rm -rf "$rootdir"' EXIT
victim="$tmp/victim"; echo "root's own" >"$victim"; chmod 0644 "$victim"   # root:root 0644, reachable by anyone
echo '{"title": "Root shell", "target": "127.0.0.1", "tests": [{"proto": "udp4", "mode": "dont", "size": 1400}]}' \
  >"$rootdir/deck.json"
printf 'open\nwait-votes 3 60000\nclose\nmeasure\nwait-measured 60000\nreveal\nsleep 3000\nquit\n' >"$rootdir/talk.script"
# root_serve NAME ARGS...: serve in a root shell (cwd $rootdir, database $rootdir/NAME.db) in the background ($pid,
# output $tmp/NAME.out), its port in $port once it listens.
root_serve() {
  local name=$1; shift
  (cd "$rootdir" && exec env -u SUDO_UID -u SUDO_GID -u DOAS_USER -u PKEXEC_UID "$bin" serve --port 0 --bind 127.0.0.1 \
     --no-qr --db "$rootdir/$name.db" "$@" </dev/null >"$tmp/$name.out" 2>&1) &
  pid=$!
  port=$(fv_join_port "$tmp/$name.out" "$pid" 100)
}
root_serve rootshell --deck "$rootdir/deck.json" --observer raw --script "$rootdir/talk.script"
python3 "$here/laptop/phones.py" "ws://127.0.0.1:$port/" --phones 3 --max-s 60 >"$tmp/rootshell.phones" 2>&1 &
phones=$!
hub_ids="" helper_ids="" hub_status=""
for _ in $(seq 1 300); do
  if grep -q "> reveal: " "$tmp/rootshell.out" 2>/dev/null; then
    hub_ids=$(ids_of "$pid"); helper=$(helper_of "$pid"); [ -n "$helper" ] && helper_ids=$(ids_of "$helper")
    hub_status=$(cat /proc/$pid/status 2>/dev/null)
    break
  fi
  sleep 0.1
done
wait "$pid"; rc=$?; pid=
wait "$phones"
echo "root shell: the hub $hub_ids, its helper $helper_ids"
check root_shell_talk_exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/rootshell.out"
check root_shell_hub_is_nobody_without_capability test "$hub_ids" = "$nob $nob $nob 0000000000000000"
check root_shell_helper_is_nobody test "$helper_ids" = "$nob $nob $nob 0000000000003000"
check root_shell_says_so grep -q "^Dropped root: now uid $nob, keeping no capability (the privileged helper, pid [0-9]*, measures) (from nobody: no invoking user known)" "$tmp/rootshell.out"
# The hub's credentials as /proc shows them (uid, gid, no group, no capability) cannot write root's 0644 file.
hub_uid=$(awk '/^Uid:/ {print $5}' <<<"$hub_status") hub_gid=$(awk '/^Gid:/ {print $5}' <<<"$hub_status")
check root_shell_hub_has_no_groups test -z "$(awk '/^Groups:/ {print $2}' <<<"$hub_status")"
check root_shell_hub_cannot_write_roots_file sh -c "test -n '$hub_uid' -a '$hub_uid' != 0 && \
  ! setpriv --reuid=$hub_uid --regid=$hub_gid --clear-groups --inh-caps=-all --bounding-set=-all \
    sh -c 'echo taken >>$victim' 2>/dev/null"
check root_shell_roots_file_intact test "$(cat "$victim")" = "root's own"
check root_shell_phones_acked test "$(jq .acked "$tmp/rootshell.phones")" -eq 3
check root_shell_votes_stored test "$(sqlite3 "$rootdir/rootshell.db" "SELECT count(*) FROM votes")" -eq 3
check root_shell_revealed test "$(sqlite3 "$rootdir/rootshell.db" "SELECT state FROM questions WHERE position = 0")" = revealed
check root_shell_db_is_roots test "$(stat -c '%u %a' "$rootdir/rootshell.db") $(stat -c '%u %a' "$rootdir")" = "0 600 0 700"
# Restarted on the same file (the -wal and -shm the hub could not remove, as nobody): a second talk.
printf 'open\nclose\nmeasure\nwait-measured 60000\nreveal\nquit\n' >"$rootdir/again.script"
root_serve rootshell --deck "$rootdir/deck.json" --observer raw --script "$rootdir/again.script"
wait "$pid"; rc=$?; pid=
check root_shell_restart_exit_0 test "$rc" -eq 0
check root_shell_restart_kept_both test "$(sqlite3 "$rootdir/rootshell.db" "PRAGMA integrity_check; SELECT count(*) FROM sessions;
  SELECT count(*) FROM votes; SELECT count(*) FROM measurements" | tr '\n' ' ')" = "ok 2 3 2 "
# The pages as well: fragvote installed (or built) inside a directory nobody
# cannot enter, as a checkout in root's 0700 home directory is. The
# hub opened the pages' directory before the drop and reads each page
# relative to it; before, serve stopped with "web pages not found".
src=${FRAGVOTE_SRC:?run through ctest}
mkdir -p "$rootdir/inst/bin" "$rootdir/inst/share/fragvote"
cp "$bin" "$rootdir/inst/bin/fragvote"
cp -r "$src/audience-web" "$rootdir/inst/share/fragvote/web"
cp -r "$src/decks" "$rootdir/inst/share/fragvote/decks"
(cd "$rootdir" && exec env -u SUDO_UID -u SUDO_GID -u DOAS_USER -u PKEXEC_UID "$rootdir/inst/bin/fragvote" serve \
   --target 127.0.0.1 --port 0 --bind 127.0.0.1 --no-qr --db "$rootdir/pages.db" --script "$tmp/long.script" \
   </dev/null >"$tmp/pages.out" 2>&1) &
pid=$!
port=$(fv_join_port "$tmp/pages.out" "$pid" 100)
codes=$(for u in / /screen/ /presenter/ /style.css /privacy.html; do
  curl -s -o /dev/null -w '%{http_code} ' --max-time 5 "http://127.0.0.1:$port$u"; done)
pages_ids=$(ids_of "$pid")
kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
echo "pages from inside a 0700 directory of root's, served by $pages_ids: $codes"
[ -n "$port" ] || cat "$tmp/pages.out"
check root_shell_pages_hub_is_nobody test "$pages_ids" = "$nob $nob $nob 0000000000000000"
check root_shell_pages_served test "$codes" = "200 200 200 200 200 "
# A hosted hub (--prober remote) keeps no capability at all, and no helper.
ids=$(running_ids "$tmp/remote.out" env DOAS_USER=nobody "$bin" serve --prober remote --port 0 --bind 127.0.0.1 \
  --no-qr --script "$tmp/long.script" --db "$tmp/remote.db")
echo "--prober remote, DOAS_USER=nobody: $ids"
check remote_hub_dropped_all test "$ids" = "$nob $nob $nob 0000000000000000"
# present (the laptop) drops the same way: to a hub that --keep-root serves here.
printf '%s\n' "privdrop-presenter-secret" >"$tmp/secret"
(cd "$tmp" && exec "$bin" serve --prober remote --keep-root --port 0 --bind 127.0.0.1 --no-qr --secret-file "$tmp/secret" \
   --script "$tmp/long.script" --db "$tmp/hub.db" </dev/null >"$tmp/hub.out" 2>&1) &
hub=$!
hubport=$(fv_join_port "$tmp/hub.out" "$hub" 100)
ids=$(running_ids "$tmp/present.out" env PKEXEC_UID="$nob" "$bin" present "ws://127.0.0.1:$hubport/" --target 127.0.0.1 \
  --observer raw --secret-file "$tmp/secret" --script "$tmp/long.script")
echo "present, PKEXEC_UID=$nob: $ids"
# present measures through its own privileged helper (issue 36, item 11): the process that reads the
# hub's frames keeps no capability, its helper only the probe's.
check present_dropped test "$ids" = "$nob $nob $nob 0000000000000000 | $nob $nob $nob 0000000000003000"
kill -TERM "$hub" 2>/dev/null; wait "$hub" 2>/dev/null
# present in a root shell: nobody too, its script and --export (in root's 0700 directory) opened
# before the drop; its hub, from a root shell too, nobody, exports through the connection it opened as root.
{ for w in 2000 0 0; do printf 'open\nsleep %d\nclose\nmeasure\nwait-measured 60000\nreveal\nnext\n' "$w"; done
  echo quit-at-end; } >"$rootdir/present.script"   # the deck's one test asks 3 questions
root_serve remotehub --prober remote --secret-file "$tmp/secret" --script "$tmp/long.script"
hub=$pid pid=
(cd "$rootdir" && exec env -u SUDO_UID -u SUDO_GID -u DOAS_USER -u PKEXEC_UID "$bin" present "ws://127.0.0.1:$port/" \
   --deck "$rootdir/deck.json" --observer raw --secret-file "$tmp/secret" --no-qr --script "$rootdir/present.script" \
   --export "$rootdir/room.json" </dev/null >"$tmp/rootpresent.out" 2>&1) &
laptop=$!
laptop_ids="" hub_ids=""
for _ in $(seq 1 200); do
  if grep -q "> open: " "$tmp/rootpresent.out" 2>/dev/null; then
    laptop_ids="$(ids_of "$laptop") | $(ids_of "$(helper_of "$laptop")")"; hub_ids=$(ids_of "$hub"); break
  fi
  sleep 0.1
done
wait "$laptop"; rc=$?
kill -TERM "$hub" 2>/dev/null; wait "$hub" 2>/dev/null
echo "root shell: present $laptop_ids, its hub $hub_ids"
check root_shell_present_exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/rootpresent.out"
check root_shell_present_is_nobody test "$laptop_ids" = "$nob $nob $nob 0000000000000000 | $nob $nob $nob 0000000000003000"
check root_shell_remote_hub_is_nobody test "$hub_ids" = "$nob $nob $nob 0000000000000000"
check root_shell_export_in_roots_directory test "$(stat -c '%u %a' "$rootdir/room.json" 2>/dev/null)" = "0 600"
check root_shell_export_is_the_session test "$(jq -r '.format + "/" + (.sessions | length | tostring)' "$rootdir/room.json")" = fragvote-export/1
# present_hosted NAME SCRIPT [VAR=VALUE...] -- ARGS...: a hub here (serve --prober remote --keep-root,
# database $tmp/NAME.db) and present (started as root with those variables, the lab $prefix, ARGS)
# measuring for it with SCRIPT. Once present says it measures: $laptop_ids (present's uid and CapEff,
# then its helper's) and $laptop_helper; then $on_measuring is run. present's exit code in $rc.
printf 'sleep 600000\nquit\n' >"$tmp/hub.script"
present_hosted() {
  local name=$1 script=$2 envs=() hubpid hp p; shift 2
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  (cd "$tmp" && exec "$bin" serve --prober remote --keep-root --port 0 --bind 127.0.0.1 --no-qr --secret-file "$tmp/secret" \
     --script "$tmp/hub.script" --db "$tmp/$name.db" </dev/null >"$tmp/$name-hub.out" 2>&1) &
  hubpid=$!
  hp=$(fv_join_port "$tmp/$name-hub.out" "$hubpid" 100)
  (cd "$tmp" && exec env -u SUDO_UID -u SUDO_GID -u DOAS_USER -u PKEXEC_UID "${envs[@]}" FRAGVOTE_LAB_PREFIX=$prefix \
     "$bin" present "ws://127.0.0.1:$hp/" --secret-file "$tmp/secret" --no-qr --script "$script" "$@" \
     </dev/null >"$tmp/$name.out" 2>&1) &
  p=$! laptop_ids="" laptop_helper="" laptop_sets=""
  for _ in $(seq 1 600); do
    if grep -q "^fragvote present: measuring for session" "$tmp/$name.out" 2>/dev/null; then
      laptop_helper=$(helper_of "$p"); laptop_ids=$(ids_of "$p")
      laptop_sets=$(awk '/^Cap(Inh|Prm|Amb):/ {printf "%s%s", sep, $2; sep=" "}' /proc/$p/status 2>/dev/null)
      [ -n "$laptop_helper" ] && laptop_ids="$laptop_ids | $(ids_of "$laptop_helper")"
      break
    fi
    sleep 0.1
  done
  [ -n "${on_measuring:-}" ] && eval "$on_measuring"
  wait "$p"; rc=$?
  kill -TERM "$hubpid" 2>/dev/null; wait "$hubpid" 2>/dev/null
}
# With the lab (SUDO_UID): present's process keeps no capability, its helper builds the lab and keeps
# NET_RAW, NET_ADMIN, SYS_ADMIN, DAC_OVERRIDE; what it measures equals what one --keep-root present measures.
echo '{"title": "Lab", "tests": [{"proto": "udp4", "mode": "do", "size": 1400}, {"proto": "udp4", "mode": "dont", "size": 3000}]}' \
  >"$tmp/labdeck.json"
{ echo "sleep 2000"; for _ in 1 2 3 4 5 6; do printf 'open\nclose\nmeasure\nwait-measured 60000\nreveal\nnext\n'; done
  echo quit-at-end; } >"$tmp/lab.script"
present_hosted labpresent "$tmp/lab.script" SUDO_UID=65534 SUDO_GID=65534 -- --deck "$tmp/labdeck.json" --observer raw
echo "present on the lab: $laptop_ids (present's CapInh CapPrm CapAmb: $laptop_sets)"
check present_lab_exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/labpresent.out"
check present_lab_keeps_no_capability test "$laptop_ids" = "65534 65534 65534 0000000000000000 | 65534 65534 65534 0000000000203002"
check present_lab_permits_nothing test "$laptop_sets" = "0000000000000000 0000000000000000 0000000000000000"
check present_lab_says_so grep -q "^Dropped root: now uid 65534, keeping no capability (the privileged helper, pid $laptop_helper, measures)" "$tmp/labpresent.out"
check present_lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0
present_hosted labkeep "$tmp/lab.script" -- --keep-root --deck "$tmp/labdeck.json" --observer raw
echo "through present's helper:"; facts "$tmp/labpresent.db"
echo "in one root present:"; facts "$tmp/labkeep.db"
# two tests of three questions each: six answers, every one observed by the raw observer
check present_lab_six_measured test "$(facts "$tmp/labpresent.db" | grep -c ' observed raw$')" -eq 6
check present_helper_measures_what_one_process_measured test "$(facts "$tmp/labpresent.db")" = "$(facts "$tmp/labkeep.db")"
# present's helper killed before the first question: said, the measurement "unknown", present ends normally.
{ echo "sleep 4000"; for _ in 1 2 3; do printf 'open\nclose\nmeasure\nwait-measured 20000\nreveal\nnext\n'; done
  echo quit-at-end; } >"$tmp/deadp.script"
on_measuring='[ -n "$laptop_helper" ] && kill -KILL "$laptop_helper"'
present_hosted deadpresent "$tmp/deadp.script" SUDO_UID=65534 SUDO_GID=65534 -- --deck "$rootdir/deck.json" --observer raw
on_measuring=
check present_dead_helper_exit_0 test "$rc" -eq 0
check present_dead_helper_said grep -q "fragvote present: the privileged helper (pid $laptop_helper) was killed by signal 9: every measurement from now on answers \"unknown\"" "$tmp/deadpresent.out"
answer=$(sqlite3 "$tmp/deadpresent.db" "SELECT answer || ' ' || basis FROM measurements LIMIT 1")
echo "measurement with present's helper dead: $answer"
check present_dead_helper_answers_unknown test "$answer" = "unknown unknown"
# --user names a user that does not exist: refused, nothing served.
env -u SUDO_UID "${serve_local[@]}" --user no-such-user-fv --db "$tmp/nouser.db" >"$tmp/nouser.out" 2>&1; rc=$?
check unknown_user_refused test "$rc" -eq 3
check unknown_user_named grep -q "no-such-user-fv: no such user" "$tmp/nouser.out"
# --user with --keep-root contradict each other: usage.
"${serve_local[@]}" --user nobody --keep-root --db "$tmp/both.db" >/dev/null 2>&1; rc=$?
check user_and_keep_root_usage test "$rc" -eq 2
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
