#!/usr/bin/env bash
# npm packages of the browser end-to-end tests (tests/audience-web): playwright-core
# drives Debian's chromium (no browser download), axe-core checks accessibility,
# reveal.js is the slide deck of docs/SLIDES.md's example (Debian 12 has none).
# Installs exactly what package-lock.json pins; node_modules is git-ignored.
set -euo pipefail
dir=$(cd "$(dirname "$0")/../../tests/audience-web" && pwd)
# npm is not in scripts/apt-packages.txt: NodeSource's nodejs ships its own npm
# and conflicts with Debian's; install Debian's only when there is none.
if ! command -v npm >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y npm
fi
# Already installed at the pinned versions: nothing to do (no network).
if [ -f "$dir/node_modules/.package-lock.json" ] &&
   cmp -s <(node -e 'const l=require(process.argv[1]);for(const[k,v]of Object.entries(l.packages))if(k)console.log(k,v.version)' "$dir/package-lock.json") \
          <(node -e 'const l=require(process.argv[1]);for(const[k,v]of Object.entries(l.packages))if(k)console.log(k,v.version)' "$dir/node_modules/.package-lock.json"); then
  exit 0
fi
# PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: belt and braces; playwright-core downloads nothing itself.
(cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
