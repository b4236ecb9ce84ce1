"""Imports flow one way (docs/ARCHITECTURE.md): no cycles between ditto_nb modules, no upward imports.

The imports are read with :mod:`ast` (nothing is executed), including imports inside functions
and ``TYPE_CHECKING`` blocks: a lazy import still couples two modules. ``from pkg import name``
counts as an import of ``pkg.name`` when that is a module, else of ``pkg``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import ditto_nb

PACKAGE = Path(ditto_nb.__file__).parent

LAYERS: dict[str, int] = {
    "": 0,  # ditto_nb/__init__.py
    "errors": 0,
    "text": 0,
    "runtime": 1,
    "workers": 2,
    "web": 3,
    "evidence": 4,
    "sandbox": 4,
    "local_model": 4,
    "testing": 4,
    "data": 4,
    "patterns": 5,
    "notebook": 6,
    "batch": 7,
    "cli": 8,
}
"""Rank of each top-level part of ``ditto_nb``: a module imports its own part or a lower rank."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imported(name: str, path: Path) -> Iterator[str]:
    """Every ditto_nb module that module ``name`` (file ``path``) imports."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in MODULES else source for a in node.names]
        else:
            continue
        yield from (t for t in targets if t in MODULES and t != name)


GRAPH: dict[str, set[str]] = {name: set(_imported(name, path)) for name, path in MODULES.items()}


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_the_package() -> None:
    assert "ditto_nb.errors" in GRAPH["ditto_nb.workers.memory_sqlite"]
    assert "ditto_nb.workers.memory_sqlite" in GRAPH["ditto_nb.workers.memory"]
    assert all(_part(m) in LAYERS for m in MODULES), sorted({_part(m) for m in MODULES} - set(LAYERS))


def test_no_import_cycle_between_ditto_nb_modules() -> None:
    cycles = _cycles()
    described = [" <-> ".join(c) + ": " + "; ".join(f"{a} -> {b}" for a in c for b in sorted(GRAPH[a] & set(c)))
                 for c in cycles]
    assert not cycles, "\n".join(described)


def test_imports_flow_one_way() -> None:
    upward = sorted(
        f"{a} -> {b}"
        for a, targets in GRAPH.items()
        for b in targets
        if _part(a) != _part(b) and LAYERS[_part(b)] >= LAYERS[_part(a)]
    )
    assert not upward, "\n".join(upward)


def test_web_never_imports_sandbox_and_patterns_never_import_their_faces() -> None:
    forbidden = {("web", "sandbox"), ("patterns", "notebook"), ("patterns", "cli"), ("patterns", "batch"),
                 ("workers", "patterns"), ("notebook", "cli")}
    bad = sorted(f"{a} -> {b}" for a, targets in GRAPH.items() for b in targets if (_part(a), _part(b)) in forbidden)
    assert not bad, "\n".join(bad)
