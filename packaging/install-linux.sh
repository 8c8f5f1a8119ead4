#!/usr/bin/env bash
# Install a built dist/citedesk folder for the current user: the app in ~/.local/opt/citedesk, the
# `citedesk` command in ~/.local/bin, and the menu entry, icon and AppStream metainfo.
set -euo pipefail
cd "$(dirname "$0")/.."
DIST=${1:-dist/citedesk}
PREFIX=${PREFIX:-$HOME/.local}
APP_ID=io.github.citedesk.CiteDesk

[ -x "$DIST/citedesk" ] || { echo "no build in $DIST: run pyinstaller packaging/citedesk.spec first" >&2; exit 2; }
rm -rf "$PREFIX/opt/citedesk"
mkdir -p "$PREFIX/opt" "$PREFIX/bin" "$PREFIX/share/applications" "$PREFIX/share/metainfo" \
    "$PREFIX/share/icons/hicolor/256x256/apps" "$PREFIX/share/icons/hicolor/scalable/apps"
cp -a "$DIST" "$PREFIX/opt/citedesk"
ln -sfn "$PREFIX/opt/citedesk/citedesk" "$PREFIX/bin/citedesk"
cp "packaging/$APP_ID.desktop" "$PREFIX/share/applications/"
cp "packaging/$APP_ID.metainfo.xml" "$PREFIX/share/metainfo/"
cp resources/icons/citedesk.png "$PREFIX/share/icons/hicolor/256x256/apps/$APP_ID.png"
cp resources/icons/citedesk.svg "$PREFIX/share/icons/hicolor/scalable/apps/$APP_ID.svg"
echo "installed: $PREFIX/bin/citedesk (and CiteDesk in your applications menu)"
