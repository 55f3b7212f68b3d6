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
    """Per-step mailbox between partitions: Send fills a key's slot, Recv waits on it.

    One condition per step serves every slot (a step's mailbox is made per step, so no
    per-slot Event): a send takes the lock only when a receiver waits."""

    __slots__ = ("_slots", "_filled", "_cond", "_waiting", "_aborted")

    def __init__(self, n: int):
        self._slots: list[Any] = [None] * n
        self._filled = [False] * n
        self._cond = threading.Condition(threading.Lock())
        self._waiting = 0
        self._aborted: BaseException | None = None

    def ready(self, slot: int) -> bool:
        """Whether ``slot`` holds its tensor (or the step was aborted)."""
        return self._filled[slot] or self._aborted is not None

    def send(self, slot: int, value: Any) -> None:
        self._slots[slot] = value
        self._filled[slot] = True
        if self._waiting:
            with self._cond:
                self._cond.notify_all()

    def recv(self, slot: int) -> Any:
        if not self._filled[slot]:
            with self._cond:
                self._waiting += 1
                try:
                    while not self._filled[slot] and self._aborted is None:
                        self._cond.wait()
                finally:
                    self._waiting -= 1
        if self._aborted is not None:
            raise errors.CancelledError(None, None, "Step was cancelled: another partition "
                                                    f"failed ({self._aborted})")
        return self._slots[slot]

    def abort(self, exc: BaseException) -> None:
        with self._cond:
            if self._aborted is None:
                self._aborted = exc
            self._cond.notify_all()
