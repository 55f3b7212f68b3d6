"""Intra-op parallelism: large elementwise kernels split their work over all cores.

TF runs a large elementwise kernel as shards on its intra-op thread pool (one thread
per core by default).  numpy releases the GIL inside its loops, so the same works
here: :func:`map_ranges` cuts ``[0, n)`` into a few contiguous ranges per thread,
which the caller's thread and the pool's take in turn until none is left.  Work below
``MIN_ELEMENTS`` stays on the caller's thread, where a handoff would cost more than
it saves.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

# Below this many elements a kernel runs on one thread.
MIN_ELEMENTS = 1 << 18
# Ranges per thread of a split kernel (see map_ranges).
CHUNKS_PER_THREAD = 4


def _default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


_threads = _default_threads()
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def threads() -> int:
    """How many threads a large kernel splits over (the cores this process may use)."""
    return _threads


def set_threads(n: int) -> None:
    """Sets the intra-op thread count (``ConfigProto.intra_op_parallelism_threads``;
    0 means one per core).  Process-wide, as TF's global intra-op pool is."""
    global _threads, _pool
    n = n if n > 0 else _default_threads()
    with _pool_lock:
        if n != _threads and _pool is not None:
            _pool.shutdown(wait=False)
            _pool = None
        _threads = n


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max(_threads - 1, 1),
                                           thread_name_prefix="graphcore-intra-op")
    return _pool


def map_ranges(fn: Callable[[int, int], None], n: int) -> None:
    """Calls ``fn(lo, hi)`` over contiguous ranges covering ``[0, n)`` when ``n`` is large
    (else once with ``(0, n)``): CHUNKS_PER_THREAD ranges per thread, which the caller's
    thread and the pool's take in turn, as TF's shards, so that a pool thread that gets
    no core (other processes on the machine) leaves its share to the others instead of
    holding the caller at the join: a range nobody has started when the caller runs out
    is the caller's, and a pool task that has not started is cancelled.  Returns when
    all are done; the first exception raised by any range is re-raised."""
    k = _threads
    if k <= 1 or n < MIN_ELEMENTS:
        fn(0, n)
        return
    k = min(k, max(n // (MIN_ELEMENTS // 4), 1))
    chunks = min(k * CHUNKS_PER_THREAD, max(n // (MIN_ELEMENTS // 16), k))
    bounds = [n * i // chunks for i in range(chunks + 1)]
    claim = itertools.count()  # (next() is atomic under the GIL)

    def take() -> None:
        i = next(claim)
        while i < chunks:
            fn(bounds[i], bounds[i + 1])
            i = next(claim)

    pool = _get_pool()
    futures = [pool.submit(take) for _ in range(1, k)]
    error: BaseException | None = None
    try:
        take()
    except BaseException as e:
        error = e
    for f in futures:
        if f.cancel():  # never started: every range is taken
            continue
        try:
            f.result()
        except BaseException as e:
            error = e if error is None else error
    if error is not None:
        raise error


def run_and_join(here: Callable[[], None], futures: list,
                 replaceable: Callable[[BaseException], bool] = lambda e: False) -> None:
    """Runs ``here`` on this thread, then waits for every future.  Raises the first
    error, unless ``replaceable(first)`` says a later one explains more (a
    cancellation that another failure caused)."""
    error: BaseException | None = None
    try:
        here()
    except BaseException as e:
        error = e
    for f in futures:
        try:
            f.result()
        except BaseException as e:
            if error is None or replaceable(error):
                error = e
    if error is not None:
        raise error


def map_rows(fn: Callable[[int, int], None], rows: int, row_size: int) -> None:
    """:func:`map_ranges` over whole rows (images of a batch, say): calls ``fn(lo, hi)``
    over contiguous row ranges covering ``[0, rows)``, split as ``rows * row_size``
    elements would be."""
    if rows <= 1 or row_size <= 0:
        fn(0, rows)
        return

    def run(lo: int, hi: int) -> None:
        lo, hi = lo // row_size, hi // row_size
        if hi > lo:
            fn(lo, hi)

    map_ranges(run, rows * row_size)


def side_by_side(here: Callable[[], None], there: Callable[[], None]) -> None:
    """Runs ``there`` on a pool thread while ``here`` runs on this one (one after the
    other with a single intra-op thread); returns when both are done."""
    if _threads <= 1:
        here()
        there()
        return
    run_and_join(here, [_get_pool().submit(there)])
