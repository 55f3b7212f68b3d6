"""Graph algorithms shared by the importer and the runtime."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable


def topological_order(names: list[str], deps: Callable[[str], Iterable[str]],
                      urgent: Callable[[str], bool] | None = None) -> list[str]:
    """``names`` ordered so each comes after its ``deps`` among ``names``.

    Ties go to the earlier name, so an already topological list keeps its order; a name
    ``urgent`` says yes to comes as soon as its deps are placed, before the earlier
    names that are ready too.
    Raises ValueError naming some of the nodes on a cycle.
    """
    pos = {n: i for i, n in enumerate(names)}
    pending = [0] * len(names)
    users: list[list[int]] = [[] for _ in names]
    for i, n in enumerate(names):
        for src in deps(n):
            j = pos.get(src)
            if j is not None:
                pending[i] += 1
                users[j].append(i)
    rank = [0 if urgent is not None and urgent(n) else 1 for n in names]
    ready = [(rank[i], i) for i in range(len(names)) if pending[i] == 0]
    heapq.heapify(ready)
    out: list[str] = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(names[i])
        for u in users[i]:
            pending[u] -= 1
            if pending[u] == 0:
                heapq.heappush(ready, (rank[u], u))
    if len(out) != len(names):
        stuck = [names[i] for i in range(len(names)) if pending[i] > 0]
        raise ValueError(f"Graph has a cycle through nodes: {', '.join(stuck[:10])}")
    return out
