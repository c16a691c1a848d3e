#!/bin/sh
# Starts the system Chromium inside the phones' network namespace, so every
# page is loaded from a non-loopback address (not a secure context), as a
# phone on venue wifi loads it. playwright-core launches this as its browser
# and talks to it over inherited pipes, which `ip netns exec` keeps open.
set -e
: "${FRAGVOTE_BROWSER_NETNS:?set FRAGVOTE_BROWSER_NETNS to the phones namespace}"
exec ip netns exec "$FRAGVOTE_BROWSER_NETNS" "${FRAGVOTE_CHROMIUM:-/usr/bin/chromium}" "$@"
