"""The package flows one way down: no import cycle between tcgemm's modules (module-level or inside functions),
and the core never imports what sits above it.

Layers, top to bottom: cli / bench, check, tune, model_bench, fused_bench, fp8_bench, grouped_bench, plot, inspection
(tools over the API) -> mlp -> nn, ops, interop, entry, grouped, precompile, distributed (the user's side) -> api
(describe -> plan -> stage -> launch, with the repeat-call memo) -> fastpath, staging, dispatch, launch -> driver,
placement, tuned, tma, problem, scales, registry, jit, schedule (below everything that plans or launches)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "tcgemm"
# The modules above the core: the core (everything else) imports none of them.
ABOVE_CORE = {"cli", "__main__", "bench", "check", "tune", "model_bench", "models", "plot", "inspection", "nn",
              "ops", "interop", "entry", "precompile", "layouts", "fragments", "sass", "fileio", "distributed", "mlp",
              "fused_bench", "fp8_bench", "grouped_bench"}


# Subpackages, each one node of the graph (its modules' imports of the package's modules are its edges).
SUBPACKAGES = ("distributed",)


def import_graph() -> dict[str, set[str]]:
    """module -> the package modules it imports (relative imports anywhere in the file); a subpackage is one
    module whose imports are its files' (``from ..x``), its own files' imports of each other left out."""
    graph: dict[str, set[str]] = {}
    names = {p.stem for p in PACKAGE.glob("*.py")} | set(SUBPACKAGES)
    files = [(p.stem, p, 1) for p in PACKAGE.glob("*.py")]
    files += [(sub, p, 2) for sub in SUBPACKAGES for p in (PACKAGE / sub).glob("*.py")]
    for node_name, path, depth in files:
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == depth:
                if node.module:
                    edges.add(node.module.split(".")[0])
                else:
                    edges.update(a.name for a in node.names if a.name in names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tcgemm."):
                edges.add(node.module.split(".")[1])
        graph.setdefault(node_name, set()).update(edges & names - {node_name})
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), and modules importing themselves."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
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
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_the_core_imports_nothing_above_it():
    graph = import_graph()
    core = set(graph) - ABOVE_CORE - {"__init__", "_version"}
    upward = {m: sorted(graph[m] & ABOVE_CORE) for m in core if graph[m] & ABOVE_CORE}
    assert upward == {}


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"a"}}) == [["a"]]
