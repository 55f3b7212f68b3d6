"""Pruning: the minimal set of nodes a step must run."""

from __future__ import annotations

from graphcore.framework import errors
from graphcore.runtime.graph_view import GraphView, NodeInfo


def tensor_name(src: str, index: int) -> str:
    return f"{src}:{index}"


# Stateful ops whose running has no effect of its own: a variable handle, a read.
_EFFECT_FREE_STATEFUL = frozenset({"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp",
                                   "VarIsInitializedOp", "IsVariableInitialized"})
# Control-flow ops: a control edge from these (or from what they feed) carries
# deadness, so it always stays.
_CONTROL_FLOW = frozenset({"Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter",
                           "Exit", "RefExit", "NextIteration", "RefNextIteration",
                           "LoopCond", "ControlTrigger"})


def prune(view: GraphView, feeds: set[str], fetches: list[str],
          targets: list[str]) -> list[str]:
    """Names of the nodes needed for ``fetches`` (tensor names) and ``targets`` (node
    names), in the view's topological order.

    Walks back over data inputs (stopping at fed tensors) and over control inputs,
    except, as TF's graph optimizer does, a control input whose only purpose would be
    to run effect-free work nothing else needs: when nothing that control input would
    add to the step has a side effect (see ``_may_have_effect``), the edge is dropped
    and that work never runs.  (TF's gradients put such an edge on the gradient of an
    input that is never used, in the ``tuple`` of a MatMul's two gradients; TF skips
    that MatMul, and so does graphcore.)"""
    nodes = view.nodes
    roots: list[str] = []
    for t in fetches:
        if t in feeds:
            continue
        src, _, idx = t.rpartition(":")
        if src not in nodes or int(idx) >= len(nodes[src].output_types):
            raise errors.NotFoundError(None, None, f"Tensor {t} is not in the graph")
        roots.append(src)
    for name in targets:
        if name not in nodes:
            raise errors.NotFoundError(None, None, f"Operation {name} is not in the graph")
        roots.append(name)
    needed: set[str] = set()
    deferred: list[str] = []  # control inputs, decided once the data closure is known
    clean: set[str] = set()  # nodes known to reach no effect outside ``needed``
    has_control_flow = False

    def close(stack: list[str]) -> None:
        nonlocal has_control_flow
        while stack:
            name = stack.pop()
            if name in needed:
                continue
            needed.add(name)
            info = nodes[name]
            has_control_flow = has_control_flow or info.op in _CONTROL_FLOW
            for src, idx in info.inputs:
                if src not in needed and f"{src}:{idx}" not in feeds:
                    stack.append(src)
            for src in info.control_inputs:
                if src not in needed and not is_fed_placeholder(view, src, feeds):
                    deferred.append(src)

    close(roots)
    while deferred:
        pending, deferred = [src for src in deferred if src not in needed], []
        for src in pending:
            # With control flow in the step, a control edge may carry deadness from a
            # Switch through nodes already needed: then every control edge stays.
            if src not in needed and (has_control_flow
                                      or _has_effect(view, src, needed, feeds, clean)):
                close([src])
    return sorted(needed, key=lambda n: nodes[n].index)


def _has_effect(view: GraphView, root: str, needed: set[str], feeds: set[str],
                clean: set[str]) -> bool:
    """Whether running ``root`` and what only it needs could be observed: some node
    among them (outside ``needed``) may have an effect.  A walk that finds none adds
    what it saw to ``clean``, which later walks skip (``needed`` only grows, so a clean
    node stays clean): each node is walked about once per prune."""
    nodes = view.nodes
    seen: set[str] = set()
    stack = [root]
    while stack:
        name = stack.pop()
        if name in seen or name in needed or name in clean:
            continue
        seen.add(name)
        info = nodes[name]
        if _may_have_effect(info):
            return True
        stack.extend(src for src, idx in info.inputs if f"{src}:{idx}" not in feeds)
        stack.extend(src for src in info.control_inputs
                     if not is_fed_placeholder(view, src, feeds))
    clean |= seen
    return False


def _may_have_effect(info: NodeInfo) -> bool:
    """TF's grappler ``IsFreeOfSideEffect``, negated: stateful ops (but a variable's
    handle or read), ops that modify a ref input (Assign, Apply*), queue ops,
    placeholders (an unfed one must still fail), and control flow."""
    op = info.op
    if op in _CONTROL_FLOW or op.startswith("Placeholder") or "Queue" in op:
        return True
    if info.reg.op_def.is_stateful:
        return op not in _EFFECT_FREE_STATEFUL
    return any(info.input_is_ref)


def is_fed_placeholder(view: GraphView, name: str, feeds: set[str]) -> bool:
    """A fed Placeholder does not run, and control edges from it are dropped (as TF
    moves them to the feed)."""
    info = view.nodes.get(name)
    return info is not None and info.op in ("Placeholder", "PlaceholderV2") and \
        f"{name}:0" in feeds
