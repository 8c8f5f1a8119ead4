#!/usr/bin/env bash
# Build CiteDesk for writers, from the root of a fresh clone, with nothing prepared beforehand:
#
#   bash packaging/build.sh
#
# 1. its own build environment (build/venv, Python 3.11, the pinned constraints, PyInstaller);
# 2. the embedder's ONNX file, exported and checked against the reference model (torch's vectors,
#    cosine >= 0.9999; its int8 copy only where it agrees within 0.99) into build/prepared;
# 3. the bundle: PyInstaller one-folder (packaging/citedesk.spec: no torch, no transformers), with
#    the menu entry, icons, AppStream metainfo, licences and install.sh / uninstall.sh, as
#    dist/citedesk-VERSION-linux-x86_64.tar.gz;
# 4. the wheel (dist/citedesk-VERSION-py3-none-any.whl), which carries the same prepared embedder.
#
# BUILD_VENV=DIR reuses (or makes) another build environment; SKIP_BUNDLE=1 / SKIP_WHEEL=1 leave one out.
# BORROW_VENV=DIR (CI: .ci/run's .venv, which has the pinned install with the models extra) makes the
# build environment from DIR's installed packages (a .pth line) plus PyInstaller and this tree's
# citedesk, instead of a second full install: seconds, not minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-python3.11}
VENV=${BUILD_VENV:-build/venv}
case $VENV in /*) ;; *) VENV=$ROOT/$VENV ;; esac
APP_ID=io.github.citedesk.CiteDesk
PYINSTALLER=pyinstaller==6.22.3
VERSION=$("$PYTHON" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
NAME=citedesk-$VERSION-linux-x86_64
say() { printf '== %s (%ss)\n' "$1" "$SECONDS"; }

say "build environment $VENV"
stamp="$VENV/.citedesk-build-$(cat constraints.txt pyproject.toml | sha256sum | cut -c1-16)"
if [ -n "${BORROW_VENV:-}" ]; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    borrowed=$("$BORROW_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    own=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    # after the build environment's own packages; the borrowed folder's .pth files (its editable
    # citedesk) are not read: the citedesk built is the one installed below
    echo "$borrowed" > "$own/borrowed-packages.pth"
    "$VENV/bin/pip" install --quiet -c constraints.txt "$PYINSTALLER"
elif [ ! -e "$stamp" ]; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    # the models extra: torch exports the embedder at build time (none of it goes into the bundle)
    "$VENV/bin/pip" install --quiet -c constraints.txt ".[models]" "$PYINSTALLER"
    touch "$stamp"
fi

say "the embedder, prepared and checked"
rm -rf build/prepared build/prepare-cache
mkdir -p build/prepared
"$VENV/bin/pip" install --quiet --no-deps --force-reinstall .  # this tree's code, resources mapped as installed
# from build/: the installed citedesk, not the source folder (whose resources/ is not citedesk.resources)
(cd build && XDG_CACHE_HOME=$ROOT/build/prepare-cache CITEDESK_ONNX=on "$VENV/bin/python" - <<'EOF'
import shutil
from pathlib import Path

from citedesk.evidence.embed import default_model_dir
from citedesk.evidence.onnx_embed import (
    FINGERPRINT_FILE, Int8Agreement, agreement_file, chosen_file, fingerprint,
)
from citedesk.evidence.onnx_export import prepare

model = default_model_dir()
prepare(model)  # ExportFailed (exit 1) when onnxruntime's vectors differ from torch's
record = Int8Agreement.read(agreement_file(model))
assert record is not None, "no int8 record"
for path in (chosen_file(model), agreement_file(model)):
    shutil.copy2(path, Path("prepared") / path.name)
# the model's small files and its fingerprint (onnx_embed.SHIPPED_MODEL): ONNX Runtime needs the
# tokenizer, not the weights (88 MB), which stay out of the bundle and the wheel
small = Path("prepared") / "model"
small.mkdir()
for name in ("config.json", "tokenizer.json"):
    shutil.copy2(model / name, small / name)
(small / FINGERPRINT_FILE).write_text(fingerprint(model) + "\n", encoding="utf-8")
print(f"prepared {chosen_file(model).name} (int8 used: {record.used}, cosine min {record.cosine_min:.4f})")
EOF
)

mkdir -p dist
if [ -z "${SKIP_BUNDLE:-}" ]; then
    say "the bundle (PyInstaller one-folder)"
    rm -rf build/citedesk build/pyinstaller "build/$NAME"
    "$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
        --workpath build/pyinstaller --distpath build packaging/citedesk.spec
    stage="build/$NAME"
    mv build/citedesk "$stage"
    mkdir -p "$stage/share/applications" "$stage/share/metainfo" "$stage/share/licenses" \
        "$stage/share/icons/hicolor/256x256/apps" "$stage/share/icons/hicolor/scalable/apps"
    cp "packaging/$APP_ID.desktop" "$stage/share/applications/"
    cp "packaging/$APP_ID.metainfo.xml" "$stage/share/metainfo/"
    cp resources/icons/citedesk.png "$stage/share/icons/hicolor/256x256/apps/$APP_ID.png"
    cp resources/icons/citedesk.svg "$stage/share/icons/hicolor/scalable/apps/$APP_ID.svg"
    cp packaging/bundle-install.sh "$stage/install.sh"
    cp packaging/bundle-uninstall.sh "$stage/uninstall.sh"
    chmod +x "$stage/install.sh" "$stage/uninstall.sh"
    # the licences of what is inside: CiteDesk's, and each bundled distribution's own files
    [ -f LICENSE ] && cp LICENSE "$stage/share/licenses/citedesk-LICENSE"
    find "$stage/_internal" -path '*.dist-info/*' \( -iname 'LICEN[CS]E*' -o -iname 'COPYING*' -o -iname 'NOTICE*' \) \
        -type f | while read -r file; do
        dist=$(basename "$(dirname "$file")" .dist-info)
        cp "$file" "$stage/share/licenses/$dist-$(basename "$file")"
    done
    "$stage/citedesk" --version >/dev/null  # the build runs before it is packed
    tar -C build -czf "dist/$NAME.tar.gz" "$NAME"
    say "dist/$NAME.tar.gz: $(du -m "dist/$NAME.tar.gz" | cut -f1) MB"
fi

if [ -z "${SKIP_WHEEL:-}" ]; then
    say "the wheel"
    rm -rf build/wheel-src
    mkdir -p build/wheel-src
    git ls-files -z | xargs -0 cp --parents -t build/wheel-src
    cp -r build/prepared build/wheel-src/citedesk/prepared
    rm -f dist/citedesk-*.whl
    "$VENV/bin/pip" wheel --quiet --no-deps -w dist build/wheel-src
    say "$(ls dist/citedesk-*.whl): $(du -m dist/citedesk-*.whl | cut -f1) MB"
fi
