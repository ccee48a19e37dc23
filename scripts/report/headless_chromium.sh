#!/usr/bin/env bash
# Render an HTML file in headless Chromium, as the report's browser test does:
#   headless_chromium.sh PAGE.html SHOT.png DOM.html [WIDTH HEIGHT]
# writes a screenshot and the DOM after parsing, and prints every message of the page's
# console as a line `console: ...` (a report has no script, so there should be none).
# Debian's chromium is installed with apt-get when it is missing (needs root); when that
# fails, the script says so and exits 3.
set -euo pipefail
page=$1 shot=$2 dom=$3 width=${4:-1200} height=${5:-2400}
# Tests run in parallel: one installs while the others wait (apt-get would fail on dpkg's lock).
exec 9>"${TMPDIR:-/tmp}/pairmetrics-chromium-install.lock"
flock 9
if ! command -v chromium >/dev/null 2>&1; then
    echo "headless_chromium.sh: installing Debian's chromium for the report's browser test" >&2
    export DEBIAN_FRONTEND=noninteractive
    install() { apt-get install -y --no-install-recommends chromium >&2; }
    if ! install && ! { apt-get update >&2 && install; }; then
        echo "headless_chromium.sh: cannot install chromium with apt-get (root and Debian's registry are needed)" >&2
        exit 3
    fi
fi
flock -u 9
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# Without the background-networking flags Chromium tries to reach Google at every start.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$profile" --enable-logging=stderr --v=0)
url="file://$(realpath "$page")"
if ! chromium "${flags[@]}" --window-size="$width,$height" --screenshot="$shot" "$url" 2>"$profile/shot.log"; then
    cat "$profile/shot.log" >&2
    exit 1
fi
chromium "${flags[@]}" --dump-dom "$url" >"$dom" 2>"$profile/dom.log"
# Chromium logs the page's console as `INFO:CONSOLE(line)] "message", source: ...`.
grep -h 'CONSOLE' "$profile/shot.log" "$profile/dom.log" | sed 's/^/console: /' || true
