"""Architecture rules, checked: the layer contracts, and heavy libraries imported lazily."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import citedesk
from citedesk.errors import CiteDeskError

PACKAGE = Path(__file__).resolve().parent.parent / "citedesk"
HEAVY = {"torch", "transformers", "sentence_transformers", "anthropic"}
MAX_MODULE_LINES = 600
OVER_THE_LIMIT: dict[str, int] = {}
"""Modules not split yet, each at most its length when the limit came: they may shrink, never
grow. None now (gather.py's data model moved to sources/resolved.py)."""
KNOWN_CYCLES: set[frozenset[str]] = set()
"""Import circles not broken yet, each the set of modules that reach one another: the list may only
shrink. None now (issue 39 broke the last two: the document model no longer chooses its dialect,
`core.reading` does, above both; the judge registry loads `evidence.local_models`, below the model
catalogue). A new circle fails `test_no_import_cycle`, and so does a listed one that is gone."""
MAX_FUNCTION_LINES = 120
LONG_FUNCTIONS = {"cli/parser.py::build_parser"}
"""Functions allowed over `MAX_FUNCTION_LINES`: the CLI's parser is one flat list of arguments."""


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


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def citedesk_imports(path: Path, modules: set[str]) -> set[str]:
    """The citedesk modules `path` imports anywhere: at module level, in functions (deferred
    imports) and under TYPE_CHECKING. `from package import name` counts as the submodule `name`
    when there is one, else as the package."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, up level - 1
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def import_graph() -> dict[str, set[str]]:
    """Every citedesk module → the citedesk modules it imports (anywhere: `citedesk_imports`), and
    the packages above each of those that the importer is not inside: importing `a.b.c` from outside
    `a.b` runs `a.b`'s `__init__` first, and whatever that imports."""
    files = {module_name(path): path for path in python_files()}
    graph = {}
    for name, path in files.items():
        imported = citedesk_imports(path, set(files))
        graph[name] = imported | {
            package
            for target in imported
            for package in packages_above(target)
            if package in files and not (name == package or name.startswith(package + "."))
        }
    return graph


def packages_above(module: str) -> list[str]:
    """`citedesk.core.dialects.base` → `citedesk.core.dialects`, `citedesk.core` (not `citedesk`,
    whose `__init__` holds the version only)."""
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(len(parts) - 1, 1, -1)]


def import_cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without
    recursion): each is a set of modules every one of which imports, through the others, every
    other — an import circle of any length. A module importing itself is not a circle."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: set[frozenset[str]] = set()
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = lowest[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    lowest[work[-1][0]] = min(lowest[work[-1][0]], lowest[node])
                if lowest[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        cycles.add(frozenset(component))
            elif target not in index:
                index[target] = lowest[target] = len(index)
                stack.append(target)
                on_stack.add(target)
                work.append((target, iter(sorted(graph.get(target, ())))))
            elif target in on_stack:
                lowest[node] = min(lowest[node], index[target])
    return cycles


def python_files(*parts: str) -> list[Path]:
    return sorted(PACKAGE.joinpath(*parts).rglob("*.py"))


def test_the_layer_contracts_hold() -> None:
    """import-linter's contracts (pyproject.toml): the layers, a core that imports nothing else, no
    Qt outside the GUI and no PySide6 outside its door, front ends that reach the engine only
    through the desk, a core free of outside libraries, and torch/transformers only in the evidence
    layer, httpx only in sources, SQLite only in the store. CI also runs `lint-imports` on its own."""
    linter = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(linter)], capture_output=True, text=True, cwd=PACKAGE.parent, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert "9 kept, 0 broken" in result.stdout


def importlinter_contracts() -> list[dict[str, Any]]:
    config = tomllib.loads(PACKAGE.parent.joinpath("pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def test_each_outside_library_contract_covers_every_other_part_of_citedesk() -> None:
    """An "Only X imports …" contract lists every top-level part but X, so a new part is covered."""
    parts = {f"citedesk.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    parts |= {f"citedesk.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")}
    owners = {
        "model libraries": "citedesk.evidence",
        "HTTP client": "citedesk.sources",
        "SQLite": "citedesk.store",
    }
    for words, owner in owners.items():
        (contract,) = [c for c in importlinter_contracts() if words in c["name"]]
        assert contract["type"] == "forbidden"
        assert set(contract["source_modules"]) == parts - {owner}, contract["name"]


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


def test_every_exception_citedesk_defines_is_a_citedesk_error() -> None:
    """One error hierarchy (citedesk/errors.py): every exception class of every module (the window's
    too) derives from CiteDeskError, beside whatever base its callers catch it by (OSError, an
    httpcore error)."""
    outside = []
    for info in pkgutil.walk_packages(citedesk.__path__, "citedesk."):
        if info.name == "citedesk.__main__":  # runs the command on import
            continue
        module = importlib.import_module(info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            ours = cls.__module__ == info.name and issubclass(cls, BaseException)
            if ours and not issubclass(cls, CiteDeskError):
                outside.append(f"{info.name}.{name}")
    assert outside == []


def test_no_module_is_over_600_lines() -> None:
    """A module longer than this does more than one job: split it by job (issue 24)."""
    too_long = {}
    for path in python_files():
        name = path.relative_to(PACKAGE).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > OVER_THE_LIMIT.get(name, MAX_MODULE_LINES):
            too_long[name] = lines
    assert too_long == {}


def test_no_function_is_over_120_lines() -> None:
    """A function longer than this does several things: split it into named steps (issue 24)."""
    too_long = {}
    for path in python_files():
        name = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES and f"{name}::{node.name}" not in LONG_FUNCTIONS:
                    too_long[f"{name}::{node.name}"] = lines
    assert too_long == {}


def test_no_import_cycle() -> None:
    """No circle of imports of any length among citedesk's modules (module level, in functions and
    under TYPE_CHECKING; `from package import name` counts as importing the submodule `name`):
    whatever a module needs lies below it, so each can be read, tested and moved without the
    others. The known circles (`KNOWN_CYCLES`) may only shrink (issue 39)."""
    found = import_cycles(import_graph())
    new = [sorted(c) for c in found - KNOWN_CYCLES]
    gone = [sorted(c) for c in KNOWN_CYCLES - found]
    assert new == [], f"new import circles: {new}"
    assert gone == [], f"circles that are gone (or changed): take them off KNOWN_CYCLES: {gone}"


def test_importing_a_module_from_outside_its_package_imports_the_package_too() -> None:
    """`core.document.model` would import the dialects' package (`from citedesk.core.dialects.x import …`
    runs `dialects/__init__`, which imports every dialect, which import the document model)."""
    graph = import_graph()
    # `config` imports `evidence.judges.registry`, and so `evidence.judges` and `evidence` first
    assert {"citedesk.evidence.judges", "citedesk.evidence"} <= graph["citedesk.config"]
    assert "citedesk.core.dialects" not in graph["citedesk.core.dialects.base"]  # inside it: no edge
    assert packages_above("citedesk.core.dialects.base") == ["citedesk.core.dialects", "citedesk.core"]


def test_the_cycle_finder_finds_circles_of_any_length_and_only_those() -> None:
    graph = {
        "a": {"b"},
        "b": {"c"},
        "c": {"a", "d"},  # a → b → c → a: a circle of three
        "d": {"e"},
        "e": set(),  # d → e: a chain, no circle
        "f": {"f", "g"},  # a module importing itself is no circle
        "g": {"h"},
        "h": {"g"},  # g ↔ h: a circle of two
    }
    assert import_cycles(graph) == {frozenset("abc"), frozenset("gh")}


DIALECT_MODULES_USED_OUTSIDE = {
    "citedesk.core.dialects.pandoc.checks": "a project's duplicate works across its chapters "
    "(`project_duplicates`, for the desk's project audit)",
    "citedesk.core.dialects.latex.bounds": "LaTeX is parsed within the deadline and under the name the front "
    "door sets (`parse_deadline`, `naming`)",
}
"""Modules of a dialect's folder that other parts may import, each with why (issue 39): the rest of a
dialect (the dialect itself, its reading, checks and repairs) is asked of `Structure.dialect`."""


def test_only_the_dialects_know_which_citation_syntax_a_document_has() -> None:
    """No module outside `core.dialects` reads a document's syntax off a flag (`.pandoc`) or imports
    one dialect's module (but those of `DIALECT_MODULES_USED_OUTSIDE`): what depends on the syntax
    is asked of `Structure.dialect` (issue 24)."""
    dialects = PACKAGE / "core" / "dialects"
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if dialects in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "pandoc":
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .pandoc")
            elif (
                isinstance(node, ast.ImportFrom)
                and (node.module or "").startswith("citedesk.core.dialects.")
                and node.module not in DIALECT_MODULES_USED_OUTSIDE
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.module}")
    assert found == []


def test_the_import_collector_sees_deferred_and_type_checking_imports() -> None:
    source = PACKAGE / "desk" / "desk.py"
    found = citedesk_imports(source, {module_name(p) for p in python_files()})
    assert {"citedesk.desk.session", "citedesk.store", "citedesk.assist.keys", "citedesk.errors"} <= found
