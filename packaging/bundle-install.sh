#!/usr/bin/env bash
# Install this CiteDesk folder for you alone (no root): the app in ~/.local/opt/citedesk, the
# `citedesk` command in ~/.local/bin, and the menu entry ("Open with CiteDesk" for Markdown, LaTeX
# and Word files), icons and AppStream metainfo under ~/.local/share. ./uninstall.sh removes it all.
# PREFIX=DIR installs under DIR instead of ~/.local.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PREFIX=${PREFIX:-$HOME/.local}
APP_ID=io.github.citedesk.CiteDesk
APP=$PREFIX/opt/citedesk

[ -x "$HERE/citedesk" ] || { echo "install.sh: no citedesk executable beside it ($HERE)" >&2; exit 2; }
if [ "$HERE" != "$APP" ]; then
    rm -rf "$APP"
    mkdir -p "$PREFIX/opt"
    cp -a "$HERE" "$APP"
fi
mkdir -p "$PREFIX/bin" "$PREFIX/share/applications" "$PREFIX/share/metainfo" \
    "$PREFIX/share/icons/hicolor/256x256/apps" "$PREFIX/share/icons/hicolor/scalable/apps"
ln -sfn "$APP/citedesk" "$PREFIX/bin/citedesk"
# the menu entry runs the installed executable by its full path: ~/.local/bin may not be on the
# desktop session's PATH
sed "s|^Exec=citedesk |Exec=$APP/citedesk |" "$APP/share/applications/$APP_ID.desktop" \
    > "$PREFIX/share/applications/$APP_ID.desktop"
cp "$APP/share/metainfo/$APP_ID.metainfo.xml" "$PREFIX/share/metainfo/"
cp "$APP/share/icons/hicolor/256x256/apps/$APP_ID.png" "$PREFIX/share/icons/hicolor/256x256/apps/"
cp "$APP/share/icons/hicolor/scalable/apps/$APP_ID.svg" "$PREFIX/share/icons/hicolor/scalable/apps/"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$PREFIX/share/applications" || true
echo "installed: $PREFIX/bin/citedesk, and CiteDesk in your applications menu"
case ":$PATH:" in *":$PREFIX/bin:"*) ;; *) echo "note: $PREFIX/bin is not on your PATH" ;; esac
echo "the window needs the X11 libraries of README's Install section; citedesk says which are missing"
