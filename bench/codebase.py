"""How easy the code is to change, in figures: module and class sizes, import cycles,
function-level imports, exception roots, broad excepts, and (with ``--mypy``) type errors.

Run from the repository's root::

    python bench/codebase.py           # sizes, cycles, roots: a second or two
    python bench/codebase.py --mypy    # and mypy's error counts (default and --strict)

The last line is JSON with every figure. The source folders map onto the import namespace
as pyproject.toml installs them (``net/`` is ``tractor.net``, and so on).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Source folder -> the package it is installed as.
FOLDERS = {"tractor": "tractor", "net": "tractor.net", "ai": "tractor.ai", "cli": "tractor.cli"}
# Classes that are data tables, not logic: not counted against the 400-line rule.
DATA_TABLES: frozenset[str] = frozenset()


def modules() -> Iterator[tuple[str, Path]]:
    """Every first-party module: (dotted name, file)."""
    for folder, package in FOLDERS.items():
        base = ROOT / folder
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if folder == "tractor" and parts and parts[0] in ("net", "ai", "cli"):
                continue  # not there in the source tree, but be safe
            yield ".".join([package, *parts]), path


def resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names."""
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def imports(
    tree: ast.Module, module: str, is_package: bool, known: set[str]
) -> Iterator[tuple[str, bool]]:
    """First-party modules imported: (module, imported at the top level?)."""
    top = set(map(id, tree.body))

    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = resolve(module, is_package, node)
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                yield name, id(node) in top
                break


def type_checking_blocks(tree: ast.Module) -> set[int]:
    """Ids of import nodes inside ``if TYPE_CHECKING:`` (they make no runtime cycle)."""
    found: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found.update(id(inner) for inner in ast.walk(node))
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                group.append(item)
                if item == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def exception_roots(trees: dict[str, ast.Module]) -> tuple[int, list[str]]:
    """First-party exception classes, and those among them whose bases are all foreign."""
    classes: dict[str, list[str]] = {}
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                classes[f"{module}.{node.name}"] = [ast.unparse(b) for b in node.bases]
    by_short: dict[str, list[str]] = {}
    for full in classes:
        by_short.setdefault(full.rpartition(".")[2], []).append(full)
    builtin_errors = {
        name for name in dir(__builtins__) if name.endswith(("Error", "Exception", "Exit"))
    } | {"Exception", "BaseException", "KeyboardInterrupt"}

    def first_party_bases(full: str) -> list[str]:
        out = []
        for base in classes[full]:
            short = base.rpartition(".")[2]
            if short in by_short:
                out.append(by_short[short][0])
        return out

    def is_exception(full: str, seen: frozenset[str] = frozenset()) -> bool:
        if full in seen:
            return False
        for base in classes[full]:
            short = base.rpartition(".")[2]
            if short in builtin_errors or short.endswith(("Error", "Exception")):
                if short not in by_short:
                    return True
            if short in by_short and is_exception(by_short[short][0], seen | {full}):
                return True
        return False

    errors = [full for full in classes if is_exception(full)]
    roots = sorted(full for full in errors if not first_party_bases(full))
    return len(errors), roots


def class_sizes(trees: dict[str, ast.Module]) -> list[tuple[int, int, str]]:
    """(lines, methods, name) of every class, largest first."""
    out = []
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name not in DATA_TABLES:
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                methods = sum(
                    isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) for item in node.body
                )
                out.append((lines, methods, f"{module}.{node.name}"))
    return sorted(out, reverse=True)


def mypy_errors() -> dict[str, int]:
    """mypy's errors over the whole package as pyproject.toml configures it (the core and
    net/ strict), by source folder, from a tree laid out as installed (mypy cannot follow
    pyproject's package-dir mapping)."""
    with tempfile.TemporaryDirectory() as farm:
        shadow = Path(farm) / "tractor"
        shadow.mkdir()
        for entry in (ROOT / "tractor").iterdir():
            if entry.name != "__pycache__":
                os.symlink(entry, shadow / entry.name)
        for folder in ("net", "ai", "cli"):
            os.symlink(ROOT / folder, shadow / folder)
        config = str(ROOT / "pyproject.toml")
        command = [sys.executable, "-m", "mypy", "--no-incremental", "--config-file", config]
        command += ["-p", "tractor"]
        done = subprocess.run(command, cwd=farm, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1) or not re.search(r"^(Found|Success)", done.stdout, re.M):
        raise RuntimeError(f"mypy failed: {done.stdout[-500:]} {done.stderr[-500:]}")
    counts = dict.fromkeys(FOLDERS, 0)
    for line in done.stdout.splitlines():
        match = re.match(r"tractor/(?:(net|ai|cli)/)?\S*:\d+: error:", line)
        if match:
            counts[match.group(1) or "tractor"] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mypy", action="store_true", help="count mypy's errors too (seconds)")
    args = parser.parse_args()

    files = dict(modules())
    trees = {name: ast.parse(path.read_text(), str(path)) for name, path in files.items()}
    known = set(files)
    graph: dict[str, set[str]] = {}
    runtime_graph: dict[str, set[str]] = {}
    inner_imports = 0
    for module, tree in trees.items():
        is_package = files[module].name == "__init__.py"
        hidden = type_checking_blocks(tree)
        for target, at_top in imports(tree, module, is_package, known):
            graph.setdefault(module, set()).add(target)
            if not at_top:
                inner_imports += 1
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in hidden:
                sub = ast.Module(body=[node], type_ignores=[])
                for target, _ in imports(sub, module, is_package, known):
                    runtime_graph.setdefault(module, set()).add(target)
    broad = sum(
        1
        for tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ExceptHandler)
        and node.type is not None
        and ast.unparse(node.type) in ("Exception", "BaseException")
    )
    sizes = sorted(
        ((len(path.read_text().splitlines()), name) for name, path in files.items()),
        reverse=True,
    )
    classes = class_sizes(trees)
    error_count, roots = exception_roots(trees)
    all_cycles = cycles(graph)
    figures: dict[str, object] = {
        "modules": len(files),
        "largest_module": {"name": sizes[0][1], "lines": sizes[0][0]},
        "modules_over_500": sum(lines > 500 for lines, _ in sizes),
        "modules_over_600": sum(lines > 600 for lines, _ in sizes),
        "largest_class": {"name": classes[0][2], "lines": classes[0][0], "methods": classes[0][1]},
        "classes_over_400": sum(lines > 400 for lines, _, _ in classes),
        "import_cycles": len(all_cycles),
        "runtime_import_cycles": len(cycles(runtime_graph)),
        "function_level_imports": inner_imports,
        "exception_classes": error_count,
        "exception_roots": len(roots),
        "broad_excepts": broad,
    }
    print("largest modules:")
    for lines, name in sizes[:8]:
        print(f"  {lines:5d}  {name}")
    print("largest classes (lines, methods):")
    for lines, methods, name in classes[:8]:
        print(f"  {lines:5d} {methods:3d}  {name}")
    print("import cycles (any import, function-level too):")
    for group in all_cycles:
        print("  " + " <-> ".join(group))
    print(f"exception roots ({len(roots)}): " + ", ".join(r.rpartition(".")[2] for r in roots))
    if args.mypy:
        counts = mypy_errors()
        figures["mypy_errors"] = sum(counts.values())
        figures["mypy_errors_by_folder"] = counts
        print(f"mypy errors by folder (core and net/ strict): {counts}")
    for key, value in figures.items():
        if not isinstance(value, dict):
            print(f"{key}: {value}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
