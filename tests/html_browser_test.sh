#!/usr/bin/env bash
# warplab bench --html in a real browser: the page renders in headless
# Chromium (from the distribution's packages: chromium-headless-shell or
# chromium; installed here when missing and apt-get can, as root), with no
# console message at all (the page has no script, so any message is an error:
# a failed load, a parse error), and a screenshot is taken. A page with a
# deliberate script error is run first, to prove the console check sees one.
# Exit 77 (skipped) with the reason when no browser can be had.
#   html_browser_test.sh WARPLAB WORK_DIR
set -u
warplab=$1
work=$2
mkdir -p "$work"

find_browser() {
    for name in chromium-headless-shell chromium chromium-browser google-chrome; do
        if command -v "$name" >/dev/null 2>&1; then
            command -v "$name"
            return 0
        fi
    done
    return 1
}

browser=$(find_browser)
if [ -z "$browser" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium-headless-shell (Debian/Ubuntu package)"
    DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq chromium-headless-shell \
        >"$work/browser-install.log" 2>&1 ||
        DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq chromium \
            >>"$work/browser-install.log" 2>&1
    browser=$(find_browser)
fi
if [ -z "$browser" ]; then
    echo "skipped: no Chromium here (apt-get install chromium-headless-shell, or chromium)"
    exit 77
fi
echo "browser: $browser ($("$browser" --version 2>/dev/null | head -1))"

# Renders file $1 to screenshot $2; the browser's log in $3.
render() {
    rm -f "$2"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --enable-logging=stderr --v=0 --window-size=1200,2400 --screenshot="$2" \
        "file://$1" >"$3" 2>&1
}

# The check must see a console error where there is one.
control="$work/browser-control.html"
printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>c</title></head><body>%s</body></html>\n' \
    '<script>no_such_function();</script>' >"$control"
render "$control" "$work/browser-control.png" "$work/browser-control.log"
if ! grep -q "CONSOLE" "$work/browser-control.log"; then
    echo "FAILED: the browser's log shows no console message for a page with a script error;"
    echo "the console check would see nothing: $(tail -5 "$work/browser-control.log")"
    exit 1
fi

page="$work/handout.html"
rm -f "$page"
if ! "$warplab" bench reduce --backend cpu --size 100000 --repeat 3 --quiet --seed 7 \
    --html "$page" >"$work/handout-bench.txt" 2>&1; then
    echo "FAILED: warplab bench --html: $(tail -5 "$work/handout-bench.txt")"
    exit 1
fi
screenshot="$work/handout.png"
render "$page" "$screenshot" "$work/handout-browser.log"
status=0
if grep "CONSOLE" "$work/handout-browser.log"; then
    echo "FAILED: console messages while rendering $page"
    status=1
fi
size=$(stat -c %s "$screenshot" 2>/dev/null || echo 0)
if [ "$size" -lt 20000 ]; then
    echo "FAILED: no screenshot, or an empty one ($size bytes): $(tail -5 "$work/handout-browser.log")"
    status=1
fi
# The page as the browser parsed it: every rung section and the chart are there.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$page" \
    >"$work/handout-dom.html" 2>/dev/null
for needle in '<svg' 'id="reduce-cpu_threads"' 'diff against cpu_loop' 'class="add"'; do
    if ! grep -q "$needle" "$work/handout-dom.html"; then
        echo "FAILED: the rendered page lacks $needle"
        status=1
    fi
done
[ $status = 0 ] && echo "ok: $page renders without console messages; screenshot $screenshot ($size bytes)"
exit $status
