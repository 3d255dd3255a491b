#!/usr/bin/env bash
# Regenerate every screenshot the documentation shows, from the running app (never by hand).
#
#   docs/make_screenshots.sh                 # uses .venv/bin/svtgui
#   SVTGUI=dist/svtgui/svtgui docs/make_screenshots.sh   # or the frozen bundle
#
# Each shot is `svtgui --screenshot OUT.png [--sample NAME] [--run] [--page NAME]` rendered offscreen,
# in the light theme, with a throw-away ledger and settings so that runs made for the pictures never
# touch the user's privacy budget. The file names are referenced by README.md, docs/user-guide.md and
# packaging/io.github.svtstudio.SvtStudio.metainfo.xml; tests/packaging/test_docs.py fails when a
# document shows an image that does not exist.
set -euo pipefail
cd "$(dirname "$0")/.."

SVTGUI=${SVTGUI:-.venv/bin/svtgui}
PYTHON=${PYTHON:-.venv/bin/python}   # only to read the page names from the code
OUT=docs/screenshots
SAMPLE=census
# Page names as `svtgui --page` accepts them, read from the code so a new page gets its picture.
main_pages=$("$PYTHON" -c "from svtgui.ui.main_window import PAGES; print(' '.join(PAGES))")
session_pages=$("$PYTHON" -c "from svtgui.ui.screenshots import SESSION_PAGES; print(' '.join(SESSION_PAGES))")
teaching_pages=$("$PYTHON" -c "from svtgui.ui.teaching.catalogue import pages; print(' '.join(pages()))")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export QT_QPA_PLATFORM=offscreen SVTGUI_THEME=light
export SVTGUI_LEDGER="$tmp/ledger.sqlite" SVTGUI_CONFIG_DIR="$tmp/config"
mkdir -p "$OUT"

shot() {  # shot NAME [svtgui arguments...]
    local name=$1; shift
    # A fresh ledger per shot: every picture starts from the same untouched budget.
    rm -f "$tmp"/ledger.sqlite*
    rm -f "$OUT/$name.png"
    "$SVTGUI" --screenshot "$OUT/$name.png" "$@" >/dev/null \
        || { echo "make_screenshots.sh: svtgui failed (exit $?) on $name.png" >&2; exit 1; }
    [ -s "$OUT/$name.png" ] || { echo "make_screenshots.sh: $name.png is empty" >&2; exit 1; }
    echo "$OUT/$name.png"
}

shot page-start --page start
shot main-window --sample "$SAMPLE"              # opens on the dataset step
shot run-finished --sample "$SAMPLE" --run       # the run step, after a run that halted at c
for page in $main_pages; do
    case $page in dataset) continue ;; esac       # already shot as main-window; page-run: a new dataset
    shot "page-$page" --sample "$SAMPLE" --page "$page"
done
for page in $session_pages; do                    # after a run: View → History, File → Export release
    shot "page-$page" --sample "$SAMPLE" --page "$page"
done
shot page-recipes --sample "$SAMPLE" --page recipes   # Queries → Recipes…, after an auto-clipped mean
shot page-compare --sample "$SAMPLE" --page compare   # Mechanism ▸ Compare mechanisms…
shot teaching-window --page teaching
for page in $teaching_pages; do
    shot "teaching-$page" --page "teaching-$page"
done
