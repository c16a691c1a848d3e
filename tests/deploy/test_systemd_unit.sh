#!/usr/bin/env bash
# The shipped systemd unit (deploy/systemd/fragvote@.service) and its example
# environment file: `systemd-analyze verify` accepts the unit without a
# warning, the unit is the hosted mode (serve --prober remote, no --target),
# and the unit's own ExecStart line, with the example file's values (port 0),
# runs as an unprivileged user with no capabilities and no new privileges, as
# DynamicUser= would: serve starts, listening on 127.0.0.1 only, with the
# public join URL and no probe engine, 50 phones vote and are acked, a laptop
# (`fragvote present --secret-file` with the credential's secret, measuring
# 127.0.0.1) connects as the prober and its measurement is stored and
# revealed, the secret is in no process's command line (it comes from the
# LoadCredential= file through --secret-file %d/secret, not from argv), the
# example's placeholder secret is refused, SIGTERM ends serve with exit 0, and the
# database in the state directory is the user's alone.
# Loopback only. The unit itself is not started (no systemd as PID 1 here).
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
src=${FRAGVOTE_SRC:?run through ctest}
load=${FRAGVOTE_BUILD:?run through ctest}/tests/load/fv_load
unit=$src/deploy/systemd/fragvote@.service
envf=$src/deploy/systemd/room1.env
tmp=$(mktemp -d /tmp/fragvote-unit-XXXXXX)
chmod 755 "$tmp"
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
pass=0 fail=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; pass=$((pass+1)); else echo "FAIL $name"; fail=$((fail+1)); fi; }

if command -v systemd-analyze >/dev/null; then
  # verify wants the program where ExecStart says: the build's, nothing else changed.
  sed "s#^ExecStart=/usr/bin/fragvote #ExecStart=$bin #" "$unit" >"$tmp/fragvote@room1.service"
  check unit_execstart_names_usr_bin grep -q "^ExecStart=$bin serve " "$tmp/fragvote@room1.service"
  # --man=no: the man page is installed with the package, not in a build tree.
  systemd-analyze verify --man=no "$tmp/fragvote@room1.service" >"$tmp/verify.out" 2>&1; rc=$?
  cat "$tmp/verify.out"
  check unit_verifies test "$rc" -eq 0
  check unit_verifies_without_a_warning test ! -s "$tmp/verify.out"
else
  echo "systemd-analyze missing: the unit is not verified (the command line still runs)"
fi

# The ExecStart command line, continuation lines joined, %i and the state dir
# replaced, ${VARS} from the example environment file.
cmd=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$unit" | sed 's/\\$//' | tr -d '\n' | sed 's/^ExecStart=//')
check execstart_found test -n "$cmd"
check unit_is_the_hosted_hub grep -q -- "--prober remote" <<<"$cmd"
check unit_has_no_target eval '! grep -q -- "--target" <<<"$cmd"'
check env_file_has_no_target eval '! grep -q "FRAGVOTE_TARGET" "$envf"'
check unit_loads_the_secret_credential grep -q '^LoadCredential=secret:/etc/fragvote/%i.secret$' "$unit"
check execstart_reads_the_credential grep -q -- "--secret-file %d/secret" <<<"$cmd"
check execstart_has_no_secret_argument eval '! grep -qE -- "--secret( |=)" <<<"$cmd"'
check env_file_has_no_secret eval '! grep -q "SECRET" "$envf"'
. "$(dirname "$0")/nginx_fixture.sh"   # fv_listen_port
mkdir -p "$tmp/state/room1"
sed -e "s/^FRAGVOTE_PORT=.*/FRAGVOTE_PORT=0/" "$envf" >"$tmp/room1.env"
set -a; . "$tmp/room1.env"; set +a
# The credential as systemd hands it over: $CREDENTIALS_DIRECTORY (%d)/secret,
# readable by the service's user only.
mkdir -p "$tmp/cred"
FRAGVOTE_SECRET=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
printf '%s\n' "$FRAGVOTE_SECRET" >"$tmp/cred/secret"
chmod 400 "$tmp/cred/secret"
cmd=${cmd//%i/room1}
cmd=${cmd//%d/$tmp/cred}
cmd=${cmd//\/var\/lib\/fragvote/$tmp/state}
cmd=${cmd/\/usr\/bin\/fragvote/$bin}
cmd=$(eval "printf '%s\n' \"$cmd\"")   # ${FRAGVOTE_*} as systemd expands them (one word each)
echo "ExecStart: $cmd"
run=()
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chown 65534:65534 "$tmp/state/room1" "$tmp/cred/secret"; chmod 700 "$tmp/state/room1"
  run=(setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all)
else
  echo "not root: the command line runs as $(id -un), not as a dynamic user"
fi
# shellcheck disable=SC2086
(cd "$tmp/state/room1" && umask 0077 && exec "${run[@]}" $cmd </dev/null >"$tmp/serve.out" 2>&1) &
pid=$!
port=$(fv_listen_port "$tmp/serve.out" "$pid")
check starts_unprivileged test -n "$port" || { cat "$tmp/serve.out"; exit 1; }
# --bind 127.0.0.1: nginx on this host reaches it, nothing else does (another
# loopback address stands for the VM's public one).
check reachable_on_127_0_0_1 timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port"
check not_reachable_on_other_addresses eval '! timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.2/$port" 2>/dev/null'
check join_url_is_the_public_one grep -q '^Join: https://vote.example.org/' "$tmp/serve.out"
check no_probe_on_the_hub grep -q '^Prober: remote' "$tmp/serve.out"
check secret_not_in_the_command_line eval '! tr "\0" " " </proc/$pid/cmdline | grep -qF -- "$FRAGVOTE_SECRET"'
check secret_not_in_the_environment eval '! tr "\0" "\n" </proc/$pid/environ | grep -qF -- "$FRAGVOTE_SECRET"'
"$load" --port "$port" --secret "$FRAGVOTE_SECRET" --db "$tmp/state/room1/fragvote.db" --phones 50 --window-ms 500 \
  >"$tmp/load.out" 2>&1; rc=$?
tail -2 "$tmp/load.out"
check phones_vote_and_are_acked test "$rc" -eq 0
# The presenter's laptop: the closed question measured on its side, revealed.
printf 'measure\nwait-measured 20000\nreveal\nquit\n' >"$tmp/talk.txt"
timeout 60 "$bin" present "ws://127.0.0.1:$port/" --target 127.0.0.1 --secret-file "$tmp/cred/secret" \
  --script "$tmp/talk.txt" </dev/null >"$tmp/present.out" 2>&1; rc=$?
grep -a -v '[█▀▄]' "$tmp/present.out" | tail -6
check laptop_measures_and_reveals test "$rc" -eq 0
check hub_saw_the_laptop grep -q 'prober connected from 127.0.0.1' "$tmp/serve.out"
"$bin" export 1 --format json --db "$tmp/state/room1/fragvote.db" >"$tmp/export.json" 2>&1
check measurement_stored_by_the_hub grep -q '"measured_at": "2' "$tmp/export.json"
check question_revealed grep -q '"state": "revealed"' "$tmp/export.json"
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
check sigterm_exits_0 test "$rc" -eq 0
check database_in_the_state_dir test -s "$tmp/state/room1/fragvote.db"
check database_is_the_users_alone test "$(stat -c %a "$tmp/state/room1/fragvote.db")" = 600
# The placeholder the example file once shipped is refused at start (exit 2).
chmod 600 "$tmp/cred/secret"
printf 'change-me-before-the-talk\n' >"$tmp/cred/secret"
# shellcheck disable=SC2086
(cd "$tmp/state/room1" && exec "${run[@]}" $cmd </dev/null >"$tmp/placeholder.out" 2>&1); rc=$?
check placeholder_secret_refused test "$rc" -eq 2
check placeholder_secret_says_why grep -q "placeholder" "$tmp/placeholder.out"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
