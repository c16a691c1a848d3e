#!/usr/bin/env bash
# After the talk, the quiz lives on (issue 37, item 4): replay_scenario.js
# plays a short talk on the lab, ends it, and checks in Debian's Chromium
# that a phone plays the self-paced replay to its share grid (and another
# reaches it by the short link /r) while the live session's rows in SQLite
# stay as they were. Same network, skips and cleanup as test_browser.sh,
# which runs it.
set -euo pipefail
export FRAGVOTE_BROWSER_SCENARIO=replay_scenario.js
exec bash "$(cd "$(dirname "$0")" && pwd)/test_browser.sh"
