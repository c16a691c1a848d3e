#!/usr/bin/env bash
# `fragvote check --phone`, the phone's side (issue 39, item 1):
# rtt_scenario.js checks in Debian's Chromium that a phone page opened with
# check=1 measures its round trip to the hub itself and reports it once, that
# the presenter gets the phone's figures, and that a phone without check=1
# reports nothing. Same network, skips and cleanup as test_browser.sh, which
# runs it.
set -euo pipefail
export FRAGVOTE_BROWSER_SCENARIO=rtt_scenario.js
exec bash "$(cd "$(dirname "$0")" && pwd)/test_browser.sh"
