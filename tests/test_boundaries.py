"""Architecture rules, checked: a Qt-free engine and lazy heavy imports."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "citedesk"
HEAVY = {"torch", "transformers", "sentence_transformers", "anthropic"}
ENGINE = ("core", "sources", "evidence", "assist")


def module_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def all_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def python_files(*parts: str) -> list[Path]:
    return sorted(PACKAGE.joinpath(*parts).rglob("*.py"))


@pytest.mark.parametrize("package", ENGINE)
def test_engine_never_imports_qt_or_the_gui(package: str) -> None:
    for path in python_files(package):
        offending = {n for n in all_imports(path) if n.startswith(("PySide6", "shiboken6", "citedesk.gui"))}
        assert not offending, f"{path.relative_to(PACKAGE)} imports {offending}"


def test_core_imports_nothing_from_other_packages() -> None:
    for path in python_files("core"):
        other = {
            n
            for n in all_imports(path)
            if n.startswith("citedesk.") and not n.startswith(("citedesk.core", "citedesk.errors"))
        }
        assert not other, f"{path.name} imports {other}"


def test_no_heavy_import_at_module_level() -> None:
    for path in python_files():
        assert not (module_level_imports(path) & HEAVY), f"{path.relative_to(PACKAGE)} imports a heavy module"


def test_importing_the_cli_and_running_an_audit_loads_neither_qt_nor_torch() -> None:
    code = (
        "import sys; from citedesk.cli import main; "
        "main(['audit', 'resources/samples/problems.md', '--offline', '--format', 'json', '--out', '/dev/null']); "
        "loaded = sorted(m for m in ('torch', 'transformers', 'PySide6', 'anthropic') if m in sys.modules); "
        "print(','.join(loaded))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=PACKAGE.parent,
        timeout=120,
    )
    assert out.stdout.strip() == ""
