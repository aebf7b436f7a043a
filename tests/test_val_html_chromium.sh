#!/usr/bin/env bash
# The HTML validation report, rendered by a real browser: test_val_html
# writes its synthetic report (5 ops, 4 buffers, names full of markup) and
# an empty one; headless Chromium loads each from file:// with name
# resolution off, runs the page's render self-check, and the dumped DOM must
# say "rendered: N op bars, M buffers, 2 charts" and hold the escaped names
# as text (no script element but the page's own). A screenshot must be a PNG
# well above a blank page's size.
#
# Reusable helper (source this file to get it without running the test:
#   . tests/test_val_html_chromium.sh   # defines functions, runs nothing):
#
#   check_html FILE EXPECTED_TEXT...
#     Loads FILE in headless Chromium (binary: $CHROMIUM, default chromium;
#     private profile and HOME in a temp dir, `timeout 60`), dumps the DOM
#     after load and checks it contains every EXPECTED_TEXT (fixed strings,
#     as serialized in the DOM: & < > in text appear as &amp; &lt; &gt;);
#     if the page has a <p id="render-check">, its text after load must
#     start with "rendered: " (not "render problem: ..."). Then takes a screenshot (window
#     $CHECK_HTML_WINDOW, default 1400,3000) and checks it is a PNG larger
#     than 2x a blank page's. Prints "FAIL: ..." lines and returns 1 on any
#     failure, 0 otherwise. If $CHECK_HTML_SHOT is set, the screenshot is
#     copied there; if $CHECK_HTML_DOM is set, the dumped DOM too.
#   have_chromium
#     Returns 0 if the Chromium binary is on PATH.
#
# Without Chromium the test is skipped (exit 0) unless CI=true or
# NPUC_REQUIRE_CHROMIUM=1, where it fails; tools/setup.sh installs it.

CHROMIUM=${CHROMIUM:-chromium}

have_chromium() { command -v "$CHROMIUM" >/dev/null 2>&1; }

# _chromium DIR ARGS...: Chromium with a private profile and HOME under DIR.
_chromium() {
  local d=$1; shift
  mkdir -p "$d/home/.config" "$d/home/.cache" "$d/profile"
  HOME="$d/home" XDG_CONFIG_HOME="$d/home/.config" XDG_CACHE_HOME="$d/home/.cache" \
    timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
      --no-first-run --no-default-browser-check --disable-extensions --disable-sync \
      --disable-background-networking --disable-component-update --disable-default-apps \
      --host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$d/profile" \
      --hide-scrollbars --virtual-time-budget=5000 "$@"
}

# file:// URL of a path (absolute; spaces and % escaped).
_file_url() {
  local abs
  abs="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
  abs=${abs//%/%25}
  abs=${abs// /%20}
  printf 'file://%s' "$abs"
}

_size() { wc -c < "$1" | tr -d ' '; }

check_html() {
  local file=$1; shift
  local d rc=0 url t
  if [ ! -s "$file" ]; then
    echo "FAIL: check_html: $file is missing or empty"
    return 1
  fi
  d=$(mktemp -d) || return 1
  url=$(_file_url "$file")

  # the DOM after the load event (the self-check writes its verdict)
  if ! _chromium "$d" --dump-dom "$url" > "$d/dom.html" 2> "$d/dom.err"; then
    echo "FAIL: chromium --dump-dom $file failed or timed out:"
    tail -5 "$d/dom.err"
    rc=1
  fi
  [ -n "${CHECK_HTML_DOM:-}" ] && cp "$d/dom.html" "$CHECK_HTML_DOM"
  if [ ! -s "$d/dom.html" ]; then
    echo "FAIL: $file: empty DOM dump"
    rc=1
  else
    for t in "$@"; do
      grep -qF -- "$t" "$d/dom.html" || { echo "FAIL: $file: rendered DOM lacks '$t'"; rc=1; }
    done
    # the page's self-check verdict, when it has one
    local verdict
    verdict=$(grep -oE '<p id="render-check"[^>]*>[^<]*' "$d/dom.html" | head -1 | sed 's/^<p[^>]*>//')
    if grep -qF 'id="render-check"' "$d/dom.html" && [ "${verdict#rendered: }" = "$verdict" ]; then
      echo "FAIL: $file: render check says: ${verdict:-nothing}"
      rc=1
    fi
  fi

  # a screenshot, against one of a blank page
  local win=${CHECK_HTML_WINDOW:-1400,3000}
  printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>blank</title></head><body></body></html>\n' \
    > "$d/blank.html"
  _chromium "$d" --window-size="$win" --screenshot="$d/blank.png" "$(_file_url "$d/blank.html")" \
    > "$d/blank.out" 2>&1
  if ! _chromium "$d" --window-size="$win" --screenshot="$d/shot.png" "$url" > "$d/shot.out" 2>&1 ||
     [ ! -s "$d/shot.png" ]; then
    echo "FAIL: chromium --screenshot $file failed:"
    tail -5 "$d/shot.out"
    rc=1
  else
    if [ "$(head -c 8 "$d/shot.png" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
      echo "FAIL: $file: the screenshot is not a PNG"
      rc=1
    fi
    local s b=0
    s=$(_size "$d/shot.png")
    [ -s "$d/blank.png" ] && b=$(_size "$d/blank.png")
    if [ "$s" -lt 20000 ] || [ "$s" -le $((2 * b)) ]; then
      echo "FAIL: $file: screenshot of $s bytes looks empty (blank page: $b bytes)"
      rc=1
    fi
    [ -n "${CHECK_HTML_SHOT:-}" ] && cp "$d/shot.png" "$CHECK_HTML_SHOT"
  fi
  rm -rf "$d"
  return $rc
}

# Sourced: the functions only.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  return 0
fi

set -u
if ! have_chromium; then
  if [ "${CI:-}" = true ] || [ "${NPUC_REQUIRE_CHROMIUM:-}" = 1 ]; then
    echo "FAIL: '$CHROMIUM' not found; the HTML report test needs Chromium (tools/setup.sh installs the" \
         "Debian package chromium)"
    exit 1
  fi
  echo "SKIP: '$CHROMIUM' not found, HTML report not rendered (tools/setup.sh installs the Debian package" \
       "chromium; set NPUC_REQUIRE_CHROMIUM=1 to make this a failure)"
  exit 0
fi

build=${NPUC_BUILD:-$(dirname "${NPUC_BIN:?set NPUC_BUILD or NPUC_BIN}")}
prog=$build/test_val_html
if [ ! -x "$prog" ]; then
  echo "FAIL: $prog not built"
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

if ! NPUC_HTML_OUT="$tmp/report.html" NPUC_HTML_OUT_EMPTY="$tmp/empty.html" "$prog" > "$tmp/prog.out" 2>&1; then
  echo "FAIL: test_val_html failed:"
  grep -a -m 20 "CHECK\|expected\|checks" "$tmp/prog.out" | cut -c1-300
  exit 1
fi

# the synthetic report: every bar, buffer and chart laid out; the names
# with markup arrive as text
CHECK_HTML_DOM="$tmp/dom.html" check_html "$tmp/report.html" \
  "rendered: 5 op bars, 4 buffers, 2 charts" \
  "model &lt;script&gt;&amp;\"'.tflite" \
  "buf &lt;script&gt;&amp;\"'" \
  "NOT bit-exact" || fails=$((fails+1))
n=$(grep -o "<script" "$tmp/dom.html" | wc -l)
[ "$n" -eq 1 ] || { echo "FAIL: $n script elements in the rendered page, expected 1"; fails=$((fails+1)); }

# the empty report (no ops, buffers, outputs): still two charts with a box
check_html "$tmp/empty.html" "rendered: 0 op bars, 0 buffers, 2 charts" || fails=$((fails+1))

if [ $fails -ne 0 ]; then
  echo "$fails HTML check(s) failed"
  exit 1
fi
echo "HTML report rendered in $("$CHROMIUM" --version 2>/dev/null | tail -1)"
