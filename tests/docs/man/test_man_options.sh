#!/usr/bin/env bash
# The man pages (docs/man/*.scd, rendered by scdoc into build/man) cover the
# program's --help exactly: every command `fragvote --help` lists has its page
# fragvote-COMMAND.1, every option of `fragvote COMMAND --help` is an option
# term (in bold) in that page, every option term the page defines is in the
# --help, and every page renders with man(1) without a warning. fragvote(1)
# does the same for the top level's own --help.
set -u
. "$(dirname "$0")/../../support/lib.sh"
man=${FRAGVOTE_BUILD:?run through ctest}/man
if [ ! -f "$man/fragvote.1" ]; then
  echo "SKIP: the man pages were not built ($man): scdoc is missing (apt-get install scdoc)"
  exit 77
fi

# Option words of a help text: --long, and -x standing alone (not re-run, 1-RTT);
# not inside `backquotes`, which quote other commands (`ping -M do`).
options() { sed 's/`[^`]*`//g' | grep -oP '(?<![\w-])(--[A-Za-z][\w-]*|-[A-Za-z](?![\w-]))' | sort -u; }
# Option terms of a rendered page: what it sets in bold (\fB--deck\fR).
bold_options() { grep -oP '\\fB\K-{1,2}[A-Za-z][\w-]*(?=\\fR)' "$1" | sort -u; }
# Option terms a page defines: the bold options of a definition's term (scdoc
# writes the term's line, then .RS for its indented text).
defined_options() { awk '/^\.RS/ && prev ~ /^\\fB-/ { print prev } { prev = $0 }' "$1" | grep -oP '\\fB\K-{1,2}[A-Za-z][\w-]*(?=\\fR)' | sort -u; }

# cover PAGE HELP-COMMAND...: the page and that --help agree.
cover() {
  local page=$1; shift
  local name; name=$(basename "$page")
  if [ ! -f "$page" ]; then
    check "$name exists (docs/man/$name.scd)" false
    return
  fi
  local help; help=$("$@" --help)
  local what="fragvote${2:+ $2} --help"
  local missing; missing=$(comm -23 <(printf '%s\n' "$help" | options) <(bold_options "$page") | tr '\n' ' ')
  check "$name has every option of '$what'${missing:+ (missing: $missing)}" test -z "$missing"
  local stale; stale=$(comm -13 <(printf '%s\n' "$help" | options) <(defined_options "$page") | tr '\n' ' ')
  check "$name defines no option that --help lacks${stale:+ (not in --help: $stale)}" test -z "$stale"
  local warn; warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  check "$name renders without warnings${warn:+ ($warn)}" test -z "$warn"
}

cover "$man/fragvote.1" "$bin"
commands=$("$bin" --help | sed -n '/^Commands:/,/^$/p' | grep -oP '^  \K[a-z][\w-]*')
check "fragvote --help lists commands" test -n "$commands"
for c in $commands; do
  cover "$man/fragvote-$c.1" "$bin" "$c"
  check "fragvote.1 names fragvote-$c(1)" grep -qF "\\fBfragvote-$c\\fR(1)" "$man/fragvote.1"
done
# No page for a command that is gone.
for page in "$man"/fragvote-*.1; do
  c=$(basename "$page" .1); c=${c#fragvote-}
  check "fragvote-$c.1 is a command of fragvote --help" grep -qxF "$c" <<<"$commands"
done
exit $fail
