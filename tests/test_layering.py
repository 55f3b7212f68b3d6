"""The import graph of graphcore and ray_runtime (read with ast, imports inside functions
included): no cycles between modules, and no import against the floor order of
../shared/DESIGN.md (protobuf, platform -> framework, lib -> ops -> kernels -> runtime ->
client -> train, summary -> the public modules -> ray_runtime)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("graphcore", "ray_runtime")

# A module may import modules of its own floor or lower ones. Subpackages not named here
# (graphcore/data, graphcore/io ...) and graphcore's top-level modules are the public-API
# floor, which only ray_runtime sits above.
FLOORS = {
    "graphcore.protobuf": 0,
    "graphcore.platform": 0,
    "graphcore.framework": 1,
    "graphcore.lib": 1,
    "graphcore.ops": 2,
    "graphcore.kernels": 3,
    "graphcore.runtime": 4,
    "graphcore.client": 5,
    "graphcore.train": 6,
    "graphcore.summary": 6,
}
PUBLIC_FLOOR = 7
RAY_FLOOR = 8


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join(parts)] = path
    return mods


def _resolve(name: str, mods: dict[str, Path]) -> str | None:
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (annotations, not run)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> the graphcore/ray_runtime modules it imports (anywhere in its body but
    ``if TYPE_CHECKING:`` blocks)."""
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        is_pkg = path.name == "__init__.py"
        tree = ast.parse(path.read_text(), str(path))
        skip = _type_checking_only(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = mod.split(".")
                    keep = len(parts) - node.level + (1 if is_pkg else 0)
                    base = ".".join(parts[:keep] + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" for a in node.names]
            for name in targets:
                target = _resolve(name, mods)
                if target is not None and target != mod:
                    edges[mod].add(target)
    return edges


def floor(module: str) -> int:
    if module.split(".")[0] == "ray_runtime":
        return RAY_FLOOR
    for prefix, level in FLOORS.items():
        if module == prefix or module.startswith(prefix + "."):
            return level
    return PUBLIC_FLOOR


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_import_cycles():
    cycles = _cycles(import_graph())
    assert cycles == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_no_import_against_the_floors():
    edges = import_graph()
    bad = sorted(f"{m} (floor {floor(m)}) imports {t} (floor {floor(t)})"
                 for m, targets in edges.items() for t in targets if floor(t) > floor(m))
    assert bad == [], "imports against the floor order:\n" + "\n".join(bad)


def test_graphcore_never_imports_ray():
    offenders = []
    for path in (ROOT / "graphcore").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names
                          if n.split(".")[0] in ("ray", "ray_runtime")]
    assert offenders == []


def test_the_checks_see_a_cycle_and_a_floor_violation():
    edges = {"graphcore.ops.a": {"graphcore.ops.b"}, "graphcore.ops.b": {"graphcore.ops.a"},
             "graphcore.framework.x": set()}
    assert _cycles(edges) == [["graphcore.ops.a", "graphcore.ops.b"]]
    assert floor("graphcore.framework.x") < floor("graphcore.kernels.y") < floor("ray_runtime")


def test_no_module_over_about_a_thousand_lines():
    long = sorted(f"{p.relative_to(ROOT)}: {n}" for pkg in PACKAGES
                  for p in (ROOT / pkg).rglob("*.py") if "protobuf" not in p.parts
                  and (n := len(p.read_text().splitlines())) > 1000)
    assert long == []
