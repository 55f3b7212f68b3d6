"""``tf.config.threading``: the thread counts of Sessions created later."""

from __future__ import annotations

from graphcore.runtime.context import context as _context

__all__ = ["get_inter_op_parallelism_threads", "get_intra_op_parallelism_threads",
           "set_inter_op_parallelism_threads", "set_intra_op_parallelism_threads"]


def get_intra_op_parallelism_threads() -> int:
    return _context().config().intra_op_parallelism_threads


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Threads one large kernel splits over (0: one per core)."""
    _context().set_intra_op_parallelism_threads(num_threads)


def get_inter_op_parallelism_threads() -> int:
    return _context().config().inter_op_parallelism_threads


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Threads independent ops of one step run on (0: chosen by the runtime)."""
    _context().set_inter_op_parallelism_threads(num_threads)
