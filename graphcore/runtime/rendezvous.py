"""Rendezvous: how a step's partitions hand tensors to each other.

A key names one transfer as TF does: ``src_device;src_incarnation;dst_device;
tensor_name;frame:iter``.  Keys are resolved to slot numbers once per plan, so a step's
mailbox is a list, not a dict.
"""

from __future__ import annotations

import threading
from typing import Any

from graphcore.framework import errors
from graphcore.framework.rendezvous_key import (  # noqa: F401 - the runtime's names too
    rendezvous_key,
    rendezvous_key_from_attrs,
)


class Rendezvous:
    """Per-step mailbox between partitions: Send fills a key's slot, Recv waits on it."""

    __slots__ = ("_slots", "_events", "_aborted")

    def __init__(self, n: int):
        self._slots: list[Any] = [None] * n
        self._events = [threading.Event() for _ in range(n)]
        self._aborted: BaseException | None = None

    def send(self, slot: int, value: Any) -> None:
        self._slots[slot] = value
        self._events[slot].set()

    def recv(self, slot: int) -> Any:
        event = self._events[slot]
        if not event.is_set():
            event.wait()
        if self._aborted is not None:
            raise errors.CancelledError(None, None, "Step was cancelled: another partition "
                                                    f"failed ({self._aborted})")
        return self._slots[slot]

    def abort(self, exc: BaseException) -> None:
        if self._aborted is None:
            self._aborted = exc
        for e in self._events:
            e.set()
