#!/usr/bin/env bash
# Results inside the slides (issue 39, item 5): slides_scenario.js serves the
# reveal.js deck of docs/SLIDES.md from another origin than fragvote serve
# --frame-ancestors on the lab, and checks in Debian's Chromium that each
# slide's embedded question follows the presenter's clicker, that view=result
# shows nothing before the reveal, and that a page of an origin the list does
# not name is refused the frame. Same network, skips and cleanup as
# test_browser.sh, which runs it.
set -euo pipefail
export FRAGVOTE_BROWSER_SCENARIO=slides_scenario.js
exec bash "$(cd "$(dirname "$0")" && pwd)/test_browser.sh"
