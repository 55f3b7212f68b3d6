"""Pruning: the minimal set of nodes a step must run."""

from __future__ import annotations

from graphcore.framework import errors
from graphcore.runtime.graph_view import GraphView


def tensor_name(src: str, index: int) -> str:
    return f"{src}:{index}"


def prune(view: GraphView, feeds: set[str], fetches: list[str],
          targets: list[str]) -> list[str]:
    """Names of the nodes needed for ``fetches`` (tensor names) and ``targets`` (node
    names), walking back over data and control inputs and stopping at fed tensors;
    in the view's topological order."""
    needed: set[str] = set()
    stack: list[str] = []
    for t in fetches:
        if t in feeds:
            continue
        src, _, idx = t.rpartition(":")
        if src not in view.nodes or int(idx) >= len(view.nodes[src].output_types):
            raise errors.NotFoundError(None, None, f"Tensor {t} is not in the graph")
        stack.append(src)
    for name in targets:
        if name not in view.nodes:
            raise errors.NotFoundError(None, None, f"Operation {name} is not in the graph")
        stack.append(name)
    nodes = view.nodes
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        needed.add(name)
        info = nodes[name]
        for src, idx in info.inputs:
            if src not in needed and f"{src}:{idx}" not in feeds:
                stack.append(src)
        for src in info.control_inputs:
            if src not in needed and not is_fed_placeholder(view, src, feeds):
                stack.append(src)
    return sorted(needed, key=lambda n: nodes[n].index)


def is_fed_placeholder(view: GraphView, name: str, feeds: set[str]) -> bool:
    """A fed Placeholder does not run, and control edges from it are dropped (as TF
    moves them to the feed)."""
    info = view.nodes.get(name)
    return info is not None and info.op in ("Placeholder", "PlaceholderV2") and \
        f"{name}:0" in feeds
