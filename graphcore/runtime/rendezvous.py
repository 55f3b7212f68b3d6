"""Rendezvous: how a step's partitions hand tensors to each other.

A key names one transfer as TF does: ``src_device;src_incarnation;dst_device;
tensor_name;frame:iter``.  Keys are resolved to slot numbers once per plan, so a step's
mailbox is a list, not a dict.
"""

from __future__ import annotations

import threading
from typing import Any

from graphcore.framework import errors


def rendezvous_key(send_device: str, incarnation: int, recv_device: str,
                   tensor_name: str) -> str:
    return f"{send_device};{incarnation:016x};{recv_device};{tensor_name};0:0"


def rendezvous_key_from_attrs(node_def: Any) -> str:
    """The key of a _Send/_Recv node, from its attrs."""
    a = node_def.attr
    return rendezvous_key(a["send_device"].s.decode(), a["send_device_incarnation"].i,
                          a["recv_device"].s.decode(), a["tensor_name"].s.decode())


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
