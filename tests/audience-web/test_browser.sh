#!/usr/bin/env bash
# Browser end-to-end test: a real Chromium (Debian's, driven by playwright-core)
# plays a whole talk against `fragvote serve` on the namespace lab — screen,
# three phones, reload, offline, reveal, score, copy button, axe-core — see
# scenario.js. Screenshots land in tests/audience-web/artifacts/<build dir>/ (git-ignored);
# FRAGVOTE_UPDATE_SCREENSHOTS=1 also copies them to docs/screenshots/.
#
# Network: two namespaces of our own, "<prefix>-lap" (the laptop, serve) and
# "<prefix>-ph" (the phones, Chromium), joined by a veth pair on
# 198.51.100.0/24, the laptop's default route pointing at the phones' link.
# The pages are therefore loaded from 198.51.100.10, not loopback: not a
# secure context, as on venue wifi. Nothing leaves these namespaces and the
# lab that serve builds (prefix <prefix>l); all are removed on every exit path.
#
# FRAGVOTE_BROWSER_SCENARIO names the scenario to run (default scenario.js;
# test_browser_path.sh runs path_scenario.js, which also builds labs of its
# own under <prefix>l2 and <prefix>l3, removed here too;
# test_browser_slides.sh runs slides_scenario.js, whose slide deck server
# runs in the laptop's namespace like serve).
set -euo pipefail

src=${FRAGVOTE_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FRAGVOTE_BIN:-$src/build/bin/fragvote}
here=$src/tests/audience-web
scenario=${FRAGVOTE_BROWSER_SCENARIO:-scenario.js}
export FRAGVOTE_CHROMIUM=${FRAGVOTE_CHROMIUM:-$(command -v chromium || true)}

if ! command -v node >/dev/null 2>&1; then echo "SKIP: node is not installed (apt-get install nodejs)"; exit 77; fi
if [ "$(node -p 'parseInt(process.versions.node)')" -lt 18 ]; then
  echo "FAIL: node $(node --version) is too old: playwright-core needs node 18 or newer"; exit 1
fi
if [ -z "$FRAGVOTE_CHROMIUM" ] || [ ! -x "$FRAGVOTE_CHROMIUM" ]; then
  echo "SKIP: chromium is not installed (apt-get install chromium)"; exit 77
fi
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root for network namespaces and the lab"; exit 77; fi
for tool in ip zbarimg; do
  command -v "$tool" >/dev/null 2>&1 || { echo "FAIL: $tool is missing (scripts/deps.sh installs it)"; exit 1; }
done
[ -x "$bin" ] || { echo "FAIL: $bin not built"; exit 1; }
if [ ! -f "$here/node_modules/playwright-core/package.json" ] || [ ! -f "$here/node_modules/axe-core/axe.min.js" ] ||
   [ ! -f "$here/node_modules/reveal.js/dist/reveal.js" ]; then
  echo "browser test: installing npm packages (scripts/deps.d/browser.sh)"
  bash "$src/scripts/deps.d/browser.sh" || { echo "FAIL: npm packages could not be installed"; exit 1; }
fi

prefix=fvbr$$
lap=$prefix-lap
ph=$prefix-ph
labprefix=${prefix}l

cleanup() {
  local rc=$?
  # Whatever still runs inside our namespaces (serve, Chromium) was started
  # by this test: stop it by pid before the namespaces go.
  local pids
  pids=$( { ip netns pids "$lap"; ip netns pids "$ph"; } 2>/dev/null || true)
  if [ -n "$pids" ]; then
    kill $pids 2>/dev/null || true
    sleep 1
    kill -9 $pids 2>/dev/null || true
  fi
  ip netns del "$lap" 2>/dev/null || true
  ip netns del "$ph" 2>/dev/null || true
  # serve removes its lab itself; this only catches a serve that was killed
  # (and the labs path_scenario.js builds by hand).
  for p in "$labprefix" "${labprefix}2" "${labprefix}3"; do
    "$bin" lab down --prefix "$p" >/dev/null 2>&1 || true
  done
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$lap"
ip netns add "$ph"
ip -n "$lap" link add v-ph type veth peer name v-lap netns "$ph"
ip -n "$lap" addr add 198.51.100.10/24 dev v-ph
ip -n "$ph" addr add 198.51.100.20/24 dev v-lap
for ns in "$lap" "$ph"; do ip -n "$ns" link set lo up; done
ip -n "$lap" link set v-ph up
ip -n "$ph" link set v-lap up
ip -n "$lap" route add default dev v-ph

export FRAGVOTE_BIN=$bin FRAGVOTE_SRC=$src FRAGVOTE_NS_LAPTOP=$lap FRAGVOTE_NS_PHONES=$ph FRAGVOTE_LAB_PREFIX=$labprefix
# One artifacts directory per build directory (and scenario): several builds
# of the same source tree may run these tests at the same time.
suffix=
[ "$scenario" = scenario.js ] || suffix=-${scenario%_scenario.js}
export FRAGVOTE_BROWSER_ARTIFACTS=${FRAGVOTE_BROWSER_ARTIFACTS:-$here/artifacts/$(basename "${FRAGVOTE_BUILD:-manual}")$suffix}
cd "$here"
# In the background so that INT/TERM reach our trap at once: node is told to
# stop (it stops serve, which removes its lab, and Chromium), then cleanup.
node "$scenario" &
node_pid=$!
trap 'kill -TERM $node_pid 2>/dev/null; wait $node_pid; exit 130' INT TERM
wait $node_pid
