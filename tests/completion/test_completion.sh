#!/usr/bin/env bash
# Bash completion (completion/fragvote.bash, installed as
# share/bash-completion/completions/fragvote): commands, each command's
# options as its --help lists them, option values, deck files and installed
# decks by name, lab/pmtu sub-words. Runs the completion function the way bash
# does on TAB, against the built program (whose data dir holds the decks).
set -u
. "$(dirname "$0")/../support/lib.sh"
src=${FRAGVOTE_SRC:?run through ctest}
fv_tmp completion
PATH=$(dirname "$bin"):$PATH
. "$src/completion/fragvote.bash"
check "complete -F _fragvote fragvote is registered" test "$(complete -p fragvote)" = "complete -F _fragvote fragvote"

# comp LINE: what TAB offers at the end of LINE (one per line, sorted).
comp() {
  read -r -a COMP_WORDS <<<"$1"
  [[ $1 == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _fragvote 2>/dev/null
  printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort
}
# is LINE WORD...: TAB offers exactly these words.
is() { local line=$1; shift; [ "$(comp "$line")" = "$(printf '%s\n' "$@" | sort)" ]; }
# has LINE WORD...: TAB offers at least these words.
has() { local line=$1 w; shift; local got; got=$(comp "$line"); for w; do grep -qxF -- "$w" <<<"$got" || return 1; done; }

commands=$("$bin" --help | sed -n '/^Commands:/,/^$/p' | grep -oP '^  \K[a-z][\w-]*')
check "fragvote <TAB>: every command" is "fragvote " $commands
check "fragvote se<TAB>: serve sessions" is "fragvote se" serve sessions
check "fragvote serve --de<TAB>: --deck" is "fragvote serve --de" --deck
serve_opts=$("$bin" serve --help | grep -oP '(?<![\w-])--[A-Za-z][\w-]*' | sort -u)
check "fragvote serve --<TAB>: every option of serve --help" is "fragvote serve --" $serve_opts
check "fragvote --por<TAB>: serve's --port (no command = serve)" is "fragvote --por" --port
check "fragvote -<TAB>: --version and serve's options" has "fragvote -" --version -V --deck --port
check "fragvote probe -<TAB>: short and long options" has "fragvote probe -" -p --proto -s --size -a --json
check "fragvote probe -p <TAB>: protocols" has "fragvote probe -p " udp4 tcp4 udp6 tcp6
check "fragvote probe -f d<TAB>: PMTUD modes" is "fragvote probe -f d" default dont do
check "fragvote export 1 -f <TAB>: formats" is "fragvote export 1 -f " csv json markdown md svg
check "fragvote serve --observer <TAB>" is "fragvote serve --observer " auto raw recverr
check "fragvote probe --witness <TAB>: lab none" is "fragvote probe --witness " lab none
check "fragvote lab <TAB>: up set down status" is "fragvote lab " up set down status
check "fragvote pmtu d<TAB>: discover" is "fragvote pmtu d" discover
check "fragvote serve --port <TAB>: nothing to offer" is "fragvote serve --port "

mkdir -p "$tmp/talks/old" && touch "$tmp/talks/mine.json" "$tmp/talks/notes.txt" "$tmp/talks/votes.db"
cd "$tmp/talks" || exit 1
check "fragvote serve --deck <TAB>: deck files, directories and installed decks" \
  is "fragvote serve --deck " mine.json old firewall-fragments fragquiz reader-challenge
check "fragvote play --deck re<TAB>: an installed deck by name" is "fragvote play --deck re" reader-challenge
check "fragvote probe --deck m<TAB>: a deck file" is "fragvote probe --deck m" mine.json
check "fragvote serve --db <TAB>: any file" has "fragvote serve --db " votes.db notes.txt mine.json
check "fragvote export 3 -o <TAB>: any file" has "fragvote export 3 -o " notes.txt
exit $fail
