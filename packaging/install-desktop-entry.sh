#!/bin/sh
# Add SVT Studio to the desktop's application menu for the current user (no root needed).
#
#   ./install-desktop-entry.sh               # the svtgui next to this script (bundle) or in ../.venv/bin
#   ./install-desktop-entry.sh PATH/svtgui   # an explicit executable
#   ./install-desktop-entry.sh --uninstall
#
# Works from the unpacked bundle (dist/svtgui/) and from a source checkout (packaging/). Installs the
# .desktop file with Exec= pointing at the executable, the hicolor icons and the AppStream metainfo under
# ${XDG_DATA_HOME:-~/.local/share}.
set -eu
APP_ID=io.github.svtstudio.SvtStudio
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}

if [ -d "$here/_internal/resources/icons/hicolor" ]; then          # unpacked bundle
    icons="$here/_internal/resources/icons/hicolor"; default_exe="$here/svtgui"
else                                                              # source checkout
    icons="$here/../resources/icons/hicolor"; default_exe="$here/../.venv/bin/svtgui"
fi

refresh() {
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data/applications" || true
    command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
}

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$data/applications/$APP_ID.desktop" "$data/metainfo/$APP_ID.metainfo.xml"
    find "$data/icons/hicolor" -name "$APP_ID.png" -path "*/apps/*" -delete 2>/dev/null || true
    refresh
    echo "SVT Studio removed from the application menu."
    exit 0
fi

exe=${1:-$default_exe}
[ -x "$exe" ] || { echo "install-desktop-entry.sh: no executable svtgui at $exe" >&2; exit 2; }
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
case "$exe" in *[[:space:]]*) echo "install-desktop-entry.sh: the path $exe contains spaces; move it" >&2; exit 2 ;; esac

mkdir -p "$data/applications" "$data/metainfo"
(cd "$icons" && find . -name "$APP_ID.png") | while read -r png; do
    mkdir -p "$data/icons/hicolor/$(dirname "$png")"
    cp "$icons/$png" "$data/icons/hicolor/$png"
done
sed -e "s|^Exec=svtgui|Exec=$exe|" -e "s|^TryExec=svtgui|TryExec=$exe|" \
    "$here/$APP_ID.desktop" > "$data/applications/$APP_ID.desktop"
cp "$here/$APP_ID.metainfo.xml" "$data/metainfo/"
refresh
echo "SVT Studio added to the application menu ($data/applications/$APP_ID.desktop -> $exe)."
