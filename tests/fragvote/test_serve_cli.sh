#!/usr/bin/env bash
# fragvote serve's command line: help, misuse and bad decks are reported
# before anything is built (no lab, no database, no listening socket).
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
tmp=$(mktemp -d /tmp/fragvote-serve-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # name, condition...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}

out=$("$bin" serve --help 2>"$tmp/err"); rc=$?
check help_exit_0 test "$rc" -eq 0
check help_on_stdout grep -q -- "--keep-pmtu-cache" <<<"$out"
check help_nothing_on_stderr test ! -s "$tmp/err"

"$bin" serve --bogus >"$tmp/out" 2>"$tmp/err"; rc=$?
check unknown_flag_exit_2 test "$rc" -eq 2
check unknown_flag_on_stderr grep -q "unknown option '--bogus'" "$tmp/err"
check unknown_flag_nothing_on_stdout test ! -s "$tmp/out"

"$bin" serve --port 70000 >/dev/null 2>"$tmp/err"; rc=$?
check bad_port_exit_2 test "$rc" -eq 2
"$bin" serve --room abc >/dev/null 2>"$tmp/err"; rc=$?
check bad_room_exit_2 test "$rc" -eq 2
"$bin" serve --observer psychic --db "$tmp/x.db" >/dev/null 2>"$tmp/err"; rc=$?
check bad_observer_exit_2 test "$rc" -eq 2
"$bin" serve --port >/dev/null 2>"$tmp/err"; rc=$?
check missing_value_exit_2 test "$rc" -eq 2

# A deck with an impossible test: the error names file, line and column.
cat >"$tmp/bad.json" <<'JSON'
{
  "title": "Broken",
  "tests": [
    {"proto": "udp4", "size": 1400},
    {"proto": "udp6", "size": 1400, "ask": ["sent", "df"]}
  ]
}
JSON
"$bin" serve --deck "$tmp/bad.json" --db "$tmp/bad.db" >/dev/null 2>"$tmp/err"; rc=$?
check bad_deck_exit_2 test "$rc" -eq 2
check bad_deck_line_column grep -q "bad.json:5:53: tests\[1\].ask\[1\]: IPv6 has no DF bit" "$tmp/err"
check bad_deck_no_db_created test ! -e "$tmp/bad.db"

printf '{"title": "T",\n "tests": [{"proto": "udp4", "size": 1400, "colour": 1}]}\n' >"$tmp/typo.json"
"$bin" serve --deck "$tmp/typo.json" >/dev/null 2>"$tmp/err"; rc=$?
check typo_deck_exit_2 test "$rc" -eq 2
check typo_deck_position grep -q "typo.json:2:44: tests\[0\].colour: unknown field" "$tmp/err"

"$bin" serve --deck "$tmp/missing.json" >/dev/null 2>"$tmp/err"; rc=$?
check missing_deck_exit_2 test "$rc" -eq 2
check missing_deck_message grep -q "missing.json: cannot open deck" "$tmp/err"

# Without privilege the default (the lab) cannot be built: exit 3 with a hint,
# and nothing is left behind (no database file, no namespace).
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chmod 777 "$tmp"
  FRAGVOTE_LAB_PREFIX="fvn$$" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
    "$bin" serve --db "$tmp/nobody.db" --port 0 --no-qr </dev/null >"$tmp/out" 2>"$tmp/err"; rc=$?
  check unprivileged_exit_3 test "$rc" -eq 3
  check unprivileged_hint grep -q "run as root, or give --target HOST" "$tmp/err"
  check unprivileged_no_db test ! -e "$tmp/nobody.db"
  check unprivileged_no_lab test "$(ip netns list | grep -c "^fvn$$-")" -eq 0
else
  echo "skip unprivileged case: not root or no setpriv"
fi

exit $fail
