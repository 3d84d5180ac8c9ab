#!/usr/bin/env bash
# The demo's live view in real headless Chromium: installs Debian's chromium
# and chromium-driver if they are missing, starts chromedriver on a free
# loopback port, and runs the Go test that drives the page through the W3C
# WebDriver HTTP API (cmd/demo/browser_test.go, browser_lab_test.go). It
# saves its screenshots in bin/ (SCREENSHOT=docs/demo-browser.png: in docs/,
# with demo-lab.png and demo-lesson-zh.png beside it). Run by
# `make browser-test` and `make test`.
#
# Skipped, with a message, only where Chromium cannot be installed; where
# it can, a Chinese font that cannot be installed fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}

find_bin() { for b in "$@"; do command -v "$b" 2>/dev/null && return 0; done; return 1; }

CHROME=$(find_bin chromium chromium-browser || true)
DRIVER=$(find_bin chromedriver || true)
if [ -z "$DRIVER" ] && [ -x /usr/lib/chromium/chromedriver ]; then DRIVER=/usr/lib/chromium/chromedriver; fi
if [ -z "$CHROME" ] || [ -z "$DRIVER" ]; then
  echo "browser-test: chromium or chromedriver not found; installing Debian's chromium and chromium-driver" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  start=$(date +%s)
  if command -v apt-get >/dev/null 2>&1 && { [ -z "$SUDO" ] || command -v sudo >/dev/null 2>&1; } &&
     $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; then
    echo "browser-test: installed in $(( $(date +%s) - start ))s" >&2
  else
    echo "browser-test: SKIP: Chromium could not be installed here (no apt-get, no sudo, or no package); the browser test did not run" >&2
    exit 0
  fi
  CHROME=$(find_bin chromium chromium-browser || true)
  DRIVER=$(find_bin chromedriver || true)
  if [ -z "$DRIVER" ] && [ -x /usr/lib/chromium/chromedriver ]; then DRIVER=/usr/lib/chromium/chromedriver; fi
  if [ -z "$CHROME" ] || [ -z "$DRIVER" ]; then
    echo "browser-test: SKIP: the packages installed but chromium or chromedriver is still missing" >&2
    exit 0
  fi
fi
command -v curl >/dev/null 2>&1 || { echo "browser-test: curl is required" >&2; exit 1; }
# A Chinese font: the test switches the page to 中文 and runs a lesson in
# it, and the screenshots must read, not show boxes. Chromium is here, so a
# font that cannot be installed is a failure, not a skip.
if [ -z "$(fc-list :lang=zh 2>/dev/null | head -1)" ]; then
  echo "browser-test: no font with Chinese glyphs; installing Debian's fonts-wqy-zenhei (else fonts-noto-cjk)" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -qq fontconfig fonts-wqy-zenhei >/dev/null 2>&1 ||
    { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq fontconfig fonts-wqy-zenhei >/dev/null; } ||
    $SUDO apt-get install -y -qq fontconfig fonts-noto-cjk >/dev/null || true
  if [ -z "$(fc-list :lang=zh 2>/dev/null | head -1)" ]; then
    echo "browser-test: FAIL: no font with Chinese glyphs could be installed (fonts-wqy-zenhei, fonts-noto-cjk): the page's 中文 would show as boxes" >&2
    exit 1
  fi
fi
echo "browser-test: Chinese font: $(fc-list :lang=zh family | head -1)"

work=$(mktemp -d)
driver_pid=""
cleanup() {
  if [ -n "$driver_pid" ]; then kill "$driver_pid" 2>/dev/null || true; wait "$driver_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# chromedriver takes no port 0, so a port is picked here: one that nothing
# answers on. Another process can still take it (on IPv4 or IPv6, which
# chromedriver also binds) before chromedriver does; then chromedriver
# exits at once ("bind() failed"), and another port is tried.
start_driver() { # start_driver PORT: true once chromedriver answers there
  "$DRIVER" --port="$1" --allowed-ips=127.0.0.1 >"$work/chromedriver.log" 2>&1 &
  driver_pid=$!
  # Up to 60 s: a busy 2-core machine can be slow to start it; the loop
  # ends as soon as it answers, or as soon as it has exited.
  for _ in $(seq 1 600); do
    if curl -fsS "http://127.0.0.1:$1/status" 2>/dev/null | grep -q '"ready": *true'; then return 0; fi
    kill -0 "$driver_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$driver_pid" 2>/dev/null || true
  wait "$driver_pid" 2>/dev/null || true
  driver_pid=""
  return 1
}
port=""
for _ in $(seq 1 10); do
  p=$(( 20000 + RANDOM % 40000 ))
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then continue; fi
  if start_driver "$p"; then port=$p; break; fi
  echo "browser-test: chromedriver did not start on port $p; trying another:" >&2
  tail -2 "$work/chromedriver.log" >&2
done
[ -n "$port" ] || { echo "browser-test: chromedriver did not start:" >&2; cat "$work/chromedriver.log" >&2; exit 1; }

echo "browser-test: $("$CHROME" --version 2>/dev/null | head -1), $("$DRIVER" --version | head -1) on port $port"
start=$(date +%s)
# The screenshot goes to bin/ (ignored by git) unless SCREENSHOT names
# another path, relative to the repo: `make browser-screenshot` sets it to
# docs/demo-browser.png, the one the docs show.
shot="${SCREENSHOT:-bin/demo-browser.png}"
mkdir -p "$(dirname "$shot")"
WEBDRIVER_URL="http://127.0.0.1:$port" \
  $GO test -count=1 -run TestBrowser -v ./cmd/demo -browser -screenshot "$PWD/$shot"
echo "browser-test: passed in $(( $(date +%s) - start ))s (screenshots: $shot, and demo-lab.png, demo-lesson-zh.png beside it)"
