#!/usr/bin/env bash
# Remove what install.sh installed (PREFIX=DIR: from DIR instead of ~/.local). Your settings,
# projects and caches (~/.config/citedesk, ~/.cache/citedesk, ~/.local/share/citedesk) stay.
set -euo pipefail
PREFIX=${PREFIX:-$HOME/.local}
APP_ID=io.github.citedesk.CiteDesk
[ "$(readlink "$PREFIX/bin/citedesk" 2>/dev/null)" = "$PREFIX/opt/citedesk/citedesk" ] && rm -f "$PREFIX/bin/citedesk"
rm -f "$PREFIX/share/applications/$APP_ID.desktop" "$PREFIX/share/metainfo/$APP_ID.metainfo.xml" \
    "$PREFIX/share/icons/hicolor/256x256/apps/$APP_ID.png" "$PREFIX/share/icons/hicolor/scalable/apps/$APP_ID.svg"
rm -rf "$PREFIX/opt/citedesk"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$PREFIX/share/applications" || true
echo "uninstalled CiteDesk from $PREFIX"
