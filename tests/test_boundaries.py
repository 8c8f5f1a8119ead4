"""Architecture rules, checked: the layer contracts, and heavy libraries imported lazily."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "citedesk"
HEAVY = {"torch", "transformers", "sentence_transformers", "anthropic"}


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


def test_the_layer_contracts_hold() -> None:
    """import-linter's contracts (pyproject.toml): the layers, a core that imports nothing else, no
    Qt outside the GUI and no PySide6 outside its door, front ends that reach the engine only
    through the desk. CI also runs `lint-imports` on its own."""
    linter = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(linter)], capture_output=True, text=True, cwd=PACKAGE.parent, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert "5 kept, 0 broken" in result.stdout


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
