#!/usr/bin/env bash
# Build the one-folder desktop bundle into dist/svtgui/ and smoke-test it offscreen.
#
#   packaging/build.sh            # uses .venv (created, with PyInstaller, if missing)
#   PYTHON=/path/python packaging/build.sh
#   SVTGUI_BUILD_CLEAN=1 packaging/build.sh   # discard PyInstaller's cache first
#   SVTGUI_BUILD_ARCHIVE=1 packaging/build.sh # also pack dist/svtgui-VERSION-linux-ARCH.tar.gz
#
# Smoke test: both executables report the version of svtgui/_version.py, the CLI lists the mechanism
# catalogue, and (once the GUI exists) the app renders a screenshot of the sample dataset to a PNG.
# Nothing touches the user's ledger or settings: they point into a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

PYTHON=${PYTHON:-.venv/bin/python}
if [ ! -x "$PYTHON" ]; then
    python3 -m venv .venv
    PYTHON=.venv/bin/python
fi
if ! "$PYTHON" -c "import PyInstaller, svtgui" 2>/dev/null; then
    "$PYTHON" -m pip install --quiet -e '.[bundle]'
fi

clean=()
[ "${SVTGUI_BUILD_CLEAN:-0}" = 1 ] && clean=(--clean)
echo "== building dist/svtgui with PyInstaller"
"$PYTHON" -m PyInstaller --noconfirm --log-level WARN "${clean[@]}" \
    --distpath dist --workpath build/pyinstaller packaging/svtgui.spec

BUNDLE=dist/svtgui
# Desktop integration travels with the bundle: ./install-desktop-entry.sh adds the menu entry.
cp packaging/install-desktop-entry.sh packaging/io.github.svtstudio.SvtStudio.desktop \
    packaging/io.github.svtstudio.SvtStudio.metainfo.xml "$BUNDLE/"
# Both executables print the same line, e.g. "SVT Studio 0.1.0 (svtgui)" (VERSION_TEXT).
expected=$("$PYTHON" -c "import runpy; print(runpy.run_path('svtgui/_version.py')['__version__'])")
version_text=$("$PYTHON" -c "import runpy; print(runpy.run_path('svtgui/_version.py')['VERSION_TEXT'])")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export QT_QPA_PLATFORM=offscreen SVTGUI_LEDGER="$tmp/ledger.sqlite" SVTGUI_CONFIG_DIR="$tmp/config"
export XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"

fail() { echo "build.sh: SMOKE TEST FAILED: $*" >&2; exit 1; }

echo "== checking that every bundled library finds the Qt/Arrow libraries it links to"
"$PYTHON" - "$BUNDLE" <<'PY' || fail "the bundle misses libraries (see svtgui.spec DROPPED)"
import re, subprocess, sys
from pathlib import Path
bundle = Path(sys.argv[1])
files = [p for p in bundle.rglob("*.so*") if p.is_file()]
present = {p.name for p in files}
missing = set()
for f in files:
    dynamic = subprocess.run(["readelf", "-d", str(f)], capture_output=True, text=True).stdout
    for line in dynamic.splitlines():
        if "(NEEDED)" in line:
            lib = line.rsplit("[", 1)[1].rstrip("]")
            if lib.startswith(("libQt6", "libarrow", "libparquet", "libpyside6", "libshiboken6")) and lib not in present:
                missing.add(f"{f.relative_to(bundle)} -> {lib}")
assert not missing, "\n".join(sorted(missing))
versions = set()
for f in files + [bundle / "svtgui-cli"]:
    info = subprocess.run(["readelf", "-V", str(f)], capture_output=True, text=True).stdout
    versions.update(tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_(\d+\.\d+)", info))
print(f"== the bundle needs glibc >= {'.'.join(map(str, max(versions)))} on the target machine")
PY

echo "== smoke test: svtgui-cli"
out=$("$BUNDLE/svtgui-cli" --version) || fail "svtgui-cli --version exited $?"
[ "$out" = "$version_text" ] || fail "svtgui-cli --version printed '$out', expected '$version_text'"
"$BUNDLE/svtgui-cli" mechanisms --json > "$tmp/mechanisms.json" || fail "svtgui-cli mechanisms exited $?"
"$PYTHON" - "$tmp/mechanisms.json" <<'PY' || fail "svtgui-cli mechanisms --json does not match the catalogue"
import json, sys
from svtgui.core import mechanisms
frozen = [e["id"] for e in json.load(open(sys.argv[1], encoding="utf-8"))]
source = [e.id for e in mechanisms.catalog()]
assert frozen == source, (frozen, source)
PY
[ -f "$BUNDLE/_internal/resources/icons/io.github.svtstudio.SvtStudio.svg" ] || fail "resources missing from the bundle"

if [ -x "$BUNDLE/svtgui" ]; then
    echo "== smoke test: svtgui"
    out=$("$BUNDLE/svtgui" --version) || fail "svtgui --version exited $?"
    [ "$out" = "$version_text" ] || fail "svtgui --version printed '$out', expected '$version_text'"
    timeout 120 "$BUNDLE/svtgui" --screenshot "$tmp/shot.png" --sample census --run \
        || fail "svtgui --screenshot exited $?"
    "$PYTHON" - "$tmp/shot.png" <<'PY' || fail "the screenshot is not a real rendering of the window"
import sys
from PySide6.QtGui import QImage
image = QImage(sys.argv[1])
assert not image.isNull(), "not a readable image"
assert image.width() >= 400 and image.height() >= 300, f"too small: {image.width()}x{image.height()}"
small = image.scaled(64, 48)
colours = {small.pixel(x, y) for x in range(small.width()) for y in range(small.height())}
assert len(colours) > 8, f"only {len(colours)} colours: a blank window?"
PY
    echo "== smoke test: desktop entry from the bundle"
    "$BUNDLE/install-desktop-entry.sh" >/dev/null || fail "install-desktop-entry.sh exited $?"
    entry="$XDG_DATA_HOME/applications/io.github.svtstudio.SvtStudio.desktop"
    grep -q "^Exec=$PWD/$BUNDLE/svtgui %f\$" "$entry" || fail "installed desktop entry does not run the bundle"
    if command -v desktop-file-validate >/dev/null; then
        desktop-file-validate "$entry" || fail "installed desktop entry is invalid"
    fi
else
    [ -f svtgui/__main__.py ] && fail "svtgui/__main__.py exists but the bundle has no svtgui executable"
    echo "== svtgui/__main__.py not written yet: bundle holds the CLI only, GUI smoke test skipped"
fi

if [ "${SVTGUI_BUILD_ARCHIVE:-0}" = 1 ]; then
    archive="dist/svtgui-$expected-linux-$(uname -m).tar.gz"
    tar -C dist -czf "$archive" svtgui
    echo "== archive: $archive ($(du -sh "$archive" | cut -f1))"
fi

echo "== bundle OK: $BUNDLE ($(du -sh "$BUNDLE" | cut -f1)), version $expected, $((SECONDS - start)) s"
