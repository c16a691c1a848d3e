#!/usr/bin/env bash
# The path picture (issue 20) in a real Chromium: path_scenario.js plays decks
# whose tests end the seven ways the picture must draw (fragmented by r1,
# dropped with Frag Needed at r1, EMSGSIZE at the host, fragmented by the host,
# a reassembling router, an ICMP-silent hop, TTL expired before the bottleneck)
# on three namespace labs, measured for real, and checks the projectors'
# (1920x1080, 1024x768) and a phone's pictures after each reveal. Same network,
# skips and cleanup as test_browser.sh, which runs it.
set -euo pipefail
export FRAGVOTE_BROWSER_SCENARIO=path_scenario.js
exec bash "$(cd "$(dirname "$0")" && pwd)/test_browser.sh"
