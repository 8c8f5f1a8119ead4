#!/usr/bin/env bash
# CI's smoke test of what packaging/build.sh made: the bundle unpacked into a fresh folder and run
# with an empty HOME (no settings, no caches, no models prepared: a writer's first run), then the
# wheel installed into a fresh virtual environment (without the models extra: no torch).
# Each first audit embeds with the prepared embedder that shipped (the judge reads
# "heuristic+minilm") and exports nothing into the profile.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-python3.11}
VERSION=$("$PYTHON" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
NAME=citedesk-$VERSION-linux-x86_64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "smoke: $*" >&2; exit 1; }

tar -C "$work" -xzf "dist/$NAME.tar.gz"
app=$work/$NAME/citedesk
mkdir "$work/home"
# a writer's environment: an empty HOME, no XDG folders set, no Python of ours on the paths
fresh=(env -i "HOME=$work/home" "PATH=/usr/bin:/bin" "LANG=C.UTF-8")

echo "== bundle: --version (${SECONDS}s)"
"${fresh[@]}" "$app" --version | grep -qx "citedesk $VERSION" || fail "--version"

echo "== bundle: an audit of a document with a fabricated marker (${SECONDS}s)"
cat > "$work/draft.md" <<'DOC'
Street trees lower summer pavement temperatures [1]. A figure no reference gives [7].

## References

1. Doe, J. (2020). Street trees and urban heat. Journal of Urban Climate, 12, 1-10.
DOC
mkdir "$work/sources"  # [1]'s source, read locally: its passages are embedded
printf 'Street trees and urban heat.\n\nStreet trees lowered summer pavement temperatures by up to 12 degrees.\n' \
    > "$work/sources/1.txt"
# audit COMMAND...: the first audit on a fresh profile, offline: exit 1, the fabricated marker found,
# the shipped embedder used, nothing exported into the profile, no traceback
audit() {
    set +e
    (cd "$work" && "${fresh[@]}" "$@" audit draft.md --offline --sources sources --format json) \
        > "$work/audit.json" 2> "$work/audit.err"
    local code=$?
    set -e
    [ "$code" = 1 ] || { cat "$work/audit.err" >&2; fail "audit exited $code, not 1"; }
    grep -q '"fabricated"' "$work/audit.json" || fail "no fabricated finding in the audit"
    grep -q '"judge": "heuristic+minilm"' "$work/audit.json" || fail "the audit did not embed"
    [ ! -e "$work/home/.cache/citedesk/onnx" ] || fail "the embedder was exported on a writer's machine"
    ! grep -q Traceback "$work/audit.err" || { cat "$work/audit.err" >&2; fail "a traceback from the audit"; }
}
audit "$app"

echo "== bundle: the window on a file for 20 s (offscreen), then SIGTERM (${SECONDS}s)"
"${fresh[@]}" QT_QPA_PLATFORM=offscreen "$app" "$work/draft.md" > "$work/window.out" 2> "$work/window.err" &
pid=$!
sleep 20
kill -0 "$pid" 2>/dev/null || { cat "$work/window.err" >&2; fail "the window quit by itself"; }
kill -TERM "$pid"
set +e
wait "$pid"
set -e
! grep -q Traceback "$work/window.err" || { cat "$work/window.err" >&2; fail "a traceback from the window"; }
sleep 2
left=$(pgrep -f "$work/$NAME/" || true)
[ -z "$left" ] || { kill $left 2>/dev/null || true; fail "processes left after SIGTERM: $left"; }

echo "== wheel: a fresh virtual environment (no models extra), --version and an audit (${SECONDS}s)"
"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet -c constraints.txt "$(ls dist/citedesk-"$VERSION"-*.whl)"
! "$work/venv/bin/python" -c 'import torch' 2>/dev/null || fail "the wheel installed torch"
(cd "$work" && "${fresh[@]}" "$work/venv/bin/citedesk" --version) | grep -qx "citedesk $VERSION" || fail "wheel --version"
rm -rf "$work/home" && mkdir "$work/home"
audit "$work/venv/bin/citedesk"
echo "== smoke: all passed (${SECONDS}s)"
