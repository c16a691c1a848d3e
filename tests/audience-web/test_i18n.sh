#!/usr/bin/env bash
# The pages' message catalogs (audience-web/i18n-*.json, docs/LANGUAGES.md):
# every catalog complete, the same placeholders as English, every key the
# pages use present, no words in the pages outside the catalogs. Pure: reads
# the source tree (check_catalogs.js says what is checked).
set -u
src=${FRAGVOTE_SRC:?run through ctest}
command -v node >/dev/null || { echo "SKIP: needs node"; exit 77; }
exec node "$src/tests/audience-web/check_catalogs.js" "$src"
