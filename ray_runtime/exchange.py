"""The client's side of a step's calls to the partitions that trade tensors with its
own partition (a launched worker's step with its ps tasks): ``run_begin`` when the
client's partition first needs them, ``resume`` with its next tensors, ``finish`` with
its last (the actor's side is :mod:`ray_runtime.actors`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from graphcore.runtime.rendezvous import Rendezvous
from ray_runtime import tracing, transport

if TYPE_CHECKING:
    from ray_runtime.actors import _RemoteRendezvous


class Exchange:
    """The client's side of ``run_begin``/``finish`` for one step.

    A partition that trades tensors with the client's own partition is started when
    the client's partition first blocks or sends to a remote task (the first flush of
    its rendezvous; every such partition then starts, so none waits on one not yet
    started): its ``run_begin`` carries the client's tensors for it so far and answers
    with the tensors it sends the client's partition (delivered when that partition
    first waits on one); the client's last tensors for it go in its ``finish`` call. A
    worker step that sends ids to a ps and gets rows back makes two calls per ps, not
    four (run_begin, a deliver each way, finish)."""

    def __init__(self, get: Callable[[Any, str], Any],
                 call: tuple[str, str, int, bool] = ("", "", 0, False),
                 clock: Callable[[], int] = tracing.now_ns):
        self._get = get
        self._call = call  # plan key, step key, fetch count, traced: run_begin's arguments
        self._clock = clock
        self.entries: list[_Begun] = []
        self.unstarted: list[tuple[_Begun, dict[int, Any]]] = []
        self._by_slot: dict[int, _Begun] = {}
        self._by_peer: dict[int, _Begun] = {}

    def add(self, task: str, actor: Any, args: dict[int, Any],
            slots: frozenset[int]) -> None:
        """A partition (on ``actor``, fed ``args``) to start by run_begin; ``slots``: the
        tensors it sends the client's partition."""
        entry = _Begun(None, task, actor)
        self.entries.append(entry)
        self.unstarted.append((entry, args))
        self._by_peer[id(actor)] = entry
        for slot in slots:
            self._by_slot[slot] = entry

    def start(self, outbox: dict[Any, list[tuple[int, Any]]]) -> None:
        """Starts every partition not started yet, each with the client's tensors for it
        in ``outbox`` (taken out of it)."""
        todo, self.unstarted = self.unstarted, []
        key, step_key, n, trace = self._call
        for entry, args in todo:
            items = outbox.pop(entry.actor, [])
            entry.submit_ns = self._clock()
            entry.ref = entry.actor.run_begin.remote(key, step_key, args, n, trace, items)
            entry.sent_ns = self._clock()
            entry.started = True

    def resume(self, peer: Any, items: list[tuple[int, Any]]) -> bool:
        """Sends ``items`` to ``peer``'s partition by ``resume`` when its last answer is
        taken (its answer, taken when the client waits on it, carries what the
        partition sends next); False when ``peer`` is not such a partition."""
        entry = self._by_peer.get(id(peer))
        if entry is None or not entry.answered or entry.outcome is not None:
            return False
        entry.record()
        entry.method = "resume"
        entry.submit_ns = self._clock()
        entry.ref = entry.actor.resume.remote(self._call[1], items, self._call[3])
        entry.sent_ns = self._clock()
        entry.answered = False
        return True

    def pull(self, slot: int, box: _RemoteRendezvous) -> None:
        """Before the client's partition waits on ``slot``: the answer of the partition
        that sends it, when not taken yet."""
        entry = self._by_slot.get(slot)
        if entry is not None and entry.started and not entry.answered:
            items = self.settle(entry)
            box._actor.traffic.received(transport.wire_bytes(v for _, v in items))
            for s, value in items:
                Rendezvous.send(box, s, value)

    def settle(self, entry: _Begun) -> list[tuple[int, Any]]:
        """Takes ``entry``'s answer: its tensors for the client (and, when the
        partition already finished, its outcome)."""
        entry.answered = True
        entry.get_ns = tracing.now_ns()
        items, entry.outcome = self._get(entry.ref, entry.task)
        entry.answered_ns = tracing.now_ns()
        return items

    def stash(self, peer: Any, items: list[tuple[int, Any]]) -> bool:
        entry = self._by_peer.get(id(peer))
        if entry is None:
            return False
        entry.final.extend(items)
        return True


class _Begun:
    __slots__ = ("ref", "task", "actor", "started", "answered", "outcome", "final", "method",
                 "submit_ns", "sent_ns", "get_ns", "answered_ns", "calls")

    def __init__(self, ref: Any, task: str, actor: Any):
        self.ref = ref
        self.task = task
        self.actor = actor
        self.started = False
        self.answered = False
        self.outcome: tuple[dict[int, Any], bytes] | None = None
        self.final: list[tuple[int, Any]] = []
        self.method = "run_begin"  # the call ``ref`` answers
        # client times (tracing): the call submitted, sent, its answer awaited, taken
        self.submit_ns = self.sent_ns = self.get_ns = self.answered_ns = 0
        self.calls: list[tuple[str, int, int, int, int]] = []  # earlier calls' times

    def record(self) -> None:
        """Keeps the answered call's times (a new call follows)."""
        self.calls.append((self.method, self.submit_ns, self.sent_ns, self.get_ns,
                           self.answered_ns))
