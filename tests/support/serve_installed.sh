#!/usr/bin/env bash
# Sourced by the install tests: serve_installed BIN DATADIR TMP runs a short
# scripted `BIN serve` on the lab (prefix $prefix) with an installed deck
# given by name only, from a directory with nothing of fragvote in it. It
# checks that the pages come from DATADIR/web (byte for byte, with whatever
# marker the caller added there) and that the deck came from DATADIR/decks.
# Uses check() of tests/support/lib.sh; the caller removes the lab and TMP.
serve_installed() {
  local bin=$1 datadir=$2 tmp=$3
  mkdir -p "$tmp/cwd" && mkfifo "$tmp/console"
  (cd "$tmp/cwd" && FRAGVOTE_LAB_PREFIX=$prefix timeout 90 "$bin" serve --deck reader-challenge \
     --db "$tmp/cwd/i.db" --port 0 --bind 127.0.0.1 --no-qr <"$tmp/console" >"$tmp/serve.out" 2>&1) &
  local pid=$!
  exec 7>"$tmp/console"
  local port="" i
  for i in $(seq 1 300); do
    port=$(grep -m1 -oP '^Join: http://[^/]*:\K[0-9]+' "$tmp/serve.out" 2>/dev/null) && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  check "serve started and printed its join URL" test -n "$port"
  local page file
  for page in /:index.html /screen:screen.html /presenter:presenter.html /common.js:common.js /style.css:style.css; do
    file=${page#*:}
    curl -sfL -o "$tmp/got" "http://127.0.0.1:${port:-1}${page%%:*}"
    check "GET ${page%%:*} serves $datadir/web/$file" cmp -s "$tmp/got" "$datadir/web/$file"
  done
  printf 'open\nclose\nmeasure\nwait-measured 20000\nreveal\nshow\nquit\n' >&7
  exec 7>&-
  wait "$pid"
  local rc=$?
  check "scripted serve exits 0" test "$rc" -eq 0
  local title; title=$(jq -r .title "$datadir/decks/reader-challenge.json")
  check "the session played the installed deck ($title)" \
    test "$(sqlite3 "$tmp/cwd/i.db" "SELECT title FROM sessions")" = "$title"
  check "question 1 revealed with a measurement from the lab" \
    test "$(sqlite3 "$tmp/cwd/i.db" "SELECT count(*) FROM questions q JOIN measurements m ON m.question_id = q.id
                                   WHERE q.position = 0 AND q.state = 'revealed'")" -ge 1
  check "the lab is gone after serve" test "$(ip netns list 2>/dev/null | grep -c "^$prefix-")" -eq 0
  [ "$rc" -ne 0 ] && cat "$tmp/serve.out"
  return 0
}
