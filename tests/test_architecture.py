"""docs/ARCHITECTURE.md, kept true: its table of rooms (line counts) and its import graph are read
back and checked against the code, so the page cannot drift from the house it describes.

The import check walks every import statement of every module (module level, inside functions,
under `TYPE_CHECKING`): a deferred import is still a dependency, and the page is about
dependencies, not about import time. The graph itself is checked against the import-linter
contracts in pyproject.toml, so the page cannot allow what CI forbids.
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "citedesk"
DOC = ROOT / "docs" / "ARCHITECTURE.md"
TOLERANCE = 100
"""How far a table figure may be from the real count rounded to the nearest 100 (the page says so):
a small change does not fail CI, a larger one asks for the table to follow."""
ROOT_PART = "citedesk"
"""The package itself (`from citedesk import __version__`): any part may import it."""


@dataclass(frozen=True)
class Import:
    """One import of a CiteDesk module, where it is written."""

    path: Path
    line: int
    source: str
    """The part that imports (a top-level package or module of citedesk/)."""
    target: str
    """The part it imports."""
    module: str

    def __str__(self) -> str:
        where = self.path.relative_to(ROOT)
        return f"{where}:{self.line} imports {self.module} ({self.source} → {self.target})"


def parts() -> set[str]:
    """The top-level parts of citedesk/: its packages and its single modules (not `__init__`)."""
    found = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    found |= {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    return found


def part_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def line_counts() -> dict[str, int]:
    counts: dict[str, int] = {}
    for path in PACKAGE.rglob("*.py"):
        part = part_of(path)
        if part == "__init__":
            continue
        counts[part] = counts.get(part, 0) + len(path.read_text(encoding="utf-8").splitlines())
    return counts


def rounded(lines: int) -> int:
    """To the nearest 100, halves up (Python's round() would take 250 to 200)."""
    return (lines + 50) // 100 * 100


def _module_name(path: Path) -> list[str]:
    names = list(path.relative_to(ROOT).with_suffix("").parts)
    return names[:-1] if names[-1] == "__init__" else names


def imports_of(path: Path, known: set[str]) -> list[Import]:
    """Every import of a citedesk module in one file, wherever in the file it is written."""
    source = part_of(path)
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path)[:-1]
    found: list[Import] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                above = package[: len(package) - (node.level - 1)]
                base = ".".join([*above, *([node.module] if node.module else [])])
            # `from citedesk import errors` imports the module errors, `from citedesk import
            # __version__` a name of the package itself.
            modules = [f"{base}.{alias.name}" for alias in node.names] if base == ROOT_PART else [base]
        else:
            continue
        for module in modules:
            names = module.split(".")
            if names[0] != ROOT_PART:
                continue
            target = names[1] if len(names) > 1 and names[1] in known else ROOT_PART
            if target not in (source, ROOT_PART):
                found.append(Import(path, node.lineno, source, target, module))
    return found


def all_imports() -> list[Import]:
    known = parts()
    return [found for path in sorted(PACKAGE.rglob("*.py")) for found in imports_of(path, known)]


def parse_graph(text: str) -> dict[str, set[str]]:
    """The lines between the import-graph markers: `- part → allowed, allowed`."""
    block = re.search(r"<!-- import-graph: begin -->\n(.*?)<!-- import-graph: end -->", text, re.S)
    assert block, "docs/ARCHITECTURE.md has no import-graph block"
    graph: dict[str, set[str]] = {}
    for line in block.group(1).splitlines():
        if not line.strip():
            continue
        matched = re.fullmatch(r"- (\S+) →(.*)", line.strip())
        assert matched, f"not a graph line: {line!r}"
        source, allowed = matched.group(1), matched.group(2)
        assert source not in graph, f"{source} is listed twice in the import graph"
        graph[source] = {name.strip() for name in allowed.split(",") if name.strip()}
    return graph


def parse_table(text: str) -> dict[tuple[str, ...], int]:
    """The rows of the rooms table: the parts named in the first cell (in backticks) → lines."""
    section = text.split("## The rooms", 1)[1].split("\n## ", 1)[0]
    rows: dict[tuple[str, ...], int] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[1].isdigit():
            rows[tuple(re.findall(r"`([^`]+)`", cells[0]))] = int(cells[1])
    return rows


def graph_problems(graph: dict[str, set[str]], imports: list[Import], known: set[str]) -> list[str]:
    """What is wrong with the graph: parts it names that do not exist, parts it leaves out, and
    each import it does not allow (named with its file and line)."""
    problems: list[str] = []
    named = set(graph) | {target for allowed in graph.values() for target in allowed}
    problems += [f"the graph names {name}, which citedesk/ does not have" for name in sorted(named - known)]
    problems += [f"{name} has no line in the graph" for name in sorted(known - set(graph))]
    problems += [
        f"not in the graph: {found}"
        for found in imports
        if found.target not in graph.get(found.source, set())
    ]
    return problems


def table_problems(rows: dict[tuple[str, ...], int], counts: dict[str, int]) -> list[str]:
    """Parts without a row, rows naming no part, and figures too far from the real count."""
    listed = [name for names in rows for name in names]
    problems = [f"{name} has two rows" for name in sorted({n for n in listed if listed.count(n) > 1})]
    problems += [f"{name} has no row in the table" for name in sorted(set(counts) - set(listed))]
    problems += [
        f"the table names {name}, which citedesk/ does not have" for name in sorted(set(listed) - set(counts))
    ]
    for names, figure in rows.items():
        real = rounded(sum(counts.get(name, 0) for name in names))
        if abs(figure - real) > TOLERANCE:
            problems.append(f"{', '.join(names)}: the table says {figure} lines, the code has {real}")
    return problems


def contract_problems(graph: dict[str, set[str]], pyproject: dict[str, object]) -> list[str]:
    """Edges of the graph that an import-linter contract forbids: the page may not allow more."""
    contracts = pyproject["tool"]["importlinter"]["contracts"]  # type: ignore[index]
    problems: list[str] = []
    for contract in contracts:
        if contract["type"] == "layers":
            layers = [
                [name.strip().removeprefix("citedesk.") for name in layer.split("|")]
                for layer in contract["layers"]
            ]
            level = {name: index for index, layer in enumerate(layers) for name in layer}
            for source, allowed in graph.items():
                for target in allowed:
                    if source in level and target in level and level[target] <= level[source]:
                        problems.append(f"{source} → {target} breaks the layers ({contract['name']})")
        elif contract["type"] == "forbidden":
            sources = {name.removeprefix("citedesk.") for name in contract["source_modules"]}
            forbidden = {name.removeprefix("citedesk.") for name in contract["forbidden_modules"]}
            for source in sources & set(graph):
                for target in graph[source] & forbidden:
                    problems.append(f"{source} → {target} is forbidden ({contract['name']})")
    return problems


def _pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_rooms_table_gives_each_part_its_lines() -> None:
    problems = table_problems(parse_table(DOC.read_text(encoding="utf-8")), line_counts())
    assert not problems, "\n".join(problems)


def test_every_import_is_one_the_graph_allows() -> None:
    graph = parse_graph(DOC.read_text(encoding="utf-8"))
    problems = graph_problems(graph, all_imports(), parts())
    assert not problems, "\n".join(problems)


def test_the_graph_allows_nothing_the_contracts_forbid() -> None:
    graph = parse_graph(DOC.read_text(encoding="utf-8"))
    assert contract_problems(graph, _pyproject()) == []


def test_a_wrong_graph_is_caught_and_the_offending_import_named() -> None:
    """The checks can fail: the page with one edge taken out, one added against the contracts, and
    one part that does not exist."""
    text = DOC.read_text(encoding="utf-8")
    right = "- gui → desk, config, core, errors, assets\n"
    assert right in text
    without_desk = parse_graph(text.replace(right, "- gui → config, core, errors, assets\n"))
    problems = graph_problems(without_desk, all_imports(), parts())
    assert problems
    assert all(problem.startswith("not in the graph: citedesk/gui/") for problem in problems)
    assert any("imports citedesk.desk" in problem and "(gui → desk)" in problem for problem in problems)

    fake_edge = parse_graph(text.replace("- core → errors\n", "- core → errors, store\n"))
    assert any(
        problem.startswith("core → store breaks the layers")
        for problem in contract_problems(fake_edge, _pyproject())
    )
    assert any(
        problem.startswith("core → store is forbidden")
        for problem in contract_problems(fake_edge, _pyproject())
    )

    cellar = parse_graph(text.replace("- store → core, errors\n", "- store → core, errors, cellar\n"))
    assert graph_problems(cellar, all_imports(), parts()) == [
        "the graph names cellar, which citedesk/ does not have"
    ]


def test_a_wrong_figure_is_caught() -> None:
    """Against a table with every figure right, so that the check is what is tested, not today's
    counts."""
    counts = line_counts()
    rows = {
        names: rounded(sum(counts[name] for name in names))
        for names in parse_table(DOC.read_text(encoding="utf-8"))
    }
    assert table_problems(rows, counts) == []
    real = rows[("core",)]
    assert table_problems({**rows, ("core",): real + 200}, counts) == [
        f"core: the table says {real + 200} lines, the code has {real}"
    ]
    assert table_problems({**rows, ("core",): real + TOLERANCE}, counts) == []
    assert table_problems(
        {names: figure for names, figure in rows.items() if names != ("store",)}, counts
    ) == ["store has no row in the table"]


def test_deferred_and_type_checking_imports_count() -> None:
    """An import under `TYPE_CHECKING` or inside a function is a dependency all the same."""
    known = parts()
    spec = imports_of(PACKAGE / "evidence" / "judges" / "spec.py", known)
    assert any(found.target == "store" and found.module == "citedesk.store" for found in spec)
    main = imports_of(PACKAGE / "main.py", known)
    assert any(found.target == "gui" and found.module == "citedesk.gui.app" for found in main)


MAX_MODULES_IN_A_FOLDER = 30
"""A folder with more modules of its own than this hides its model: split it into rooms (issue 39)."""


def core_rooms(text: str) -> set[str]:
    """The folders the page's table of the core's rooms names (`core`, `core/document` …)."""
    block = text.split("<!-- core-rooms: begin -->", 1)[1].split("<!-- core-rooms: end -->", 1)[0]
    return set(re.findall(r"^\| `(core(?:/[\w/]+)?)` \|", block, flags=re.MULTILINE))


def core_folders() -> dict[str, int]:
    """Every folder of citedesk/core that is a package → how many modules it holds directly."""
    core = PACKAGE / "core"
    return {
        init.parent.relative_to(PACKAGE).as_posix(): sum(
            1 for m in init.parent.glob("*.py") if m.name != "__init__.py"
        )
        for init in sorted(core.rglob("__init__.py"))
    }


def test_the_core_rooms_table_names_each_folder_of_the_core_and_none_is_crowded() -> None:
    folders = core_folders()
    assert core_rooms(DOC.read_text(encoding="utf-8")) == set(folders)
    assert {folder: n for folder, n in folders.items() if n > MAX_MODULES_IN_A_FOLDER} == {}


def test_a_core_folder_missing_from_the_table_is_caught() -> None:
    text = DOC.read_text(encoding="utf-8")
    without = re.sub(r"^\| `core/projects` \|.*\n", "", text, flags=re.MULTILINE)
    assert core_rooms(without) == set(core_folders()) - {"core/projects"}
