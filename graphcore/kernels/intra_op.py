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
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

# Below this many elements a kernel runs on one thread.
MIN_ELEMENTS = 1 << 18
# The same for transcendental elementwise kernels (exp, log, tanh, sigmoid...: several ns
# an element, where an add takes a fraction of one): their work outweighs a handoff sooner.
COSTLY_MIN_ELEMENTS = 1 << 16
# Ranges per thread of a split kernel (see map_ranges).
CHUNKS_PER_THREAD = 4


# Work that may run on one thread or on the intra-op team (a oneDNN product or primitive,
# a split elementwise kernel) times both team sizes per shape of work and runs on the
# faster, as libgomp's OMP_DYNAMIC sizes teams by the load: when
# other processes hold the cores, OpenMP's static split makes the caller wait for a
# worker that is not running (the digits MLP's step took 2.6x as long on two threads as on
# one at a load of 6), while on idle cores two threads are ~1.5x as fast.  A shape's
# TEAM_PROBE-th product after the last probe runs on the other size, so the choice follows
# the load; a probe 1.25x slower than the choice doubles the interval (up to 16x), and a
# probe faster than the choice's median probes again at once (the window of the probed
# size fills in a few calls, not in TEAM_WINDOW intervals, after a spike of the choice
# -- a core taken for a moment -- turned the choice to the slower size).  Each
# size is judged by the median of its last TEAM_WINDOW timings: one call that waited for
# a core neither flips the choice nor, as a moving average did, keeps the faster size out
# of use for hundreds of calls.
TEAM_PROBE = 16
TEAM_WINDOW = 3
_TEAM_SHAPES = 4096  # shapes of work timed at most (then the timings start over)



def _median(times: list) -> float:
    return sorted(times)[len(times) // 2]


class TeamTimings(dict):
    """Per shape of work, [calls, the call that probes next, the probe interval, the last
    TEAM_WINDOW seconds on one thread, on the full team]: which team size a call runs on
    (see TEAM_PROBE)."""

    def choose(self, key: tuple) -> tuple[list, bool, bool]:
        """(the shape's timings, whether this call runs on one thread, whether it probes)."""
        stats = self.get(key)
        if stats is None:
            if len(self) >= _TEAM_SHAPES:  # (shapes that vary without end)
                self.clear()
            stats = self[key] = [0, 2 * TEAM_WINDOW + TEAM_PROBE, TEAM_PROBE, [], []]
        stats[0] += 1
        calls = stats[0]
        if calls <= 2 * TEAM_WINDOW:  # the first calls alternate: full team, one thread
            return stats, not calls % 2, False
        probe = calls >= stats[1]
        return stats, (_median(stats[3]) < _median(stats[4])) != probe, probe

    @staticmethod
    def record(stats: list, one: bool, probe: bool, elapsed: float) -> None:
        """Adds one call's time (seconds) to the timings :meth:`choose` returned."""
        if probe:
            chosen = _median(stats[4] if one else stats[3])
            if elapsed > 1.25 * chosen:  # the choice holds: probe less often
                stats[2] = min(2 * stats[2], 16 * TEAM_PROBE)
                stats[1] = stats[0] + stats[2]
            else:  # as fast: probe again soon; faster: at once, to switch within calls
                stats[2] = TEAM_PROBE
                stats[1] = stats[0] + (1 if elapsed < chosen else TEAM_PROBE)
        recent = stats[3] if one else stats[4]
        recent.append(elapsed)
        if len(recent) > TEAM_WINDOW:
            del recent[0]


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


def map_ranges(fn: Callable[[int, int], None], n: int,
               min_elements: int = MIN_ELEMENTS) -> None:
    """Calls ``fn(lo, hi)`` over contiguous ranges covering ``[0, n)`` when ``n`` is large
    (else once with ``(0, n)``): CHUNKS_PER_THREAD ranges per thread, which the caller's
    thread and the pool's take in turn, as TF's shards, so that a pool thread that gets
    no core (other processes on the machine) leaves its share to the others instead of
    holding the caller at the join: a range nobody has started when the caller runs out
    is the caller's, and a pool task that has not started is cancelled.  Returns when
    all are done; the first exception raised by any range is re-raised.  ``min_elements``:
    the size under which ``fn`` runs once on this thread."""
    k = _threads
    if k <= 1 or n < min_elements:
        fn(0, n)
        return
    k = min(k, max(n // (min_elements // 4), 1))
    chunks = min(k * CHUNKS_PER_THREAD, max(n // (min_elements // 16), k))
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


class Splitter:
    """Runs ``fn(lo, hi)`` over ``[0, n)`` either split (:func:`map_ranges`) or in one
    call on this thread, per size ``n`` as :class:`TeamTimings` finds faster: under load
    the pool's thread may get no core, and the handoff then only costs."""

    def __init__(self, min_elements: int):
        self.min_elements = min_elements
        self._timings = TeamTimings()

    def __call__(self, fn: Callable[[int, int], None], n: int,
                 whole: Callable[[], None] | None = None) -> None:
        """``whole()``, where given, stands for ``fn(0, n)`` on this thread."""
        whole = whole or (lambda: fn(0, n))
        if n < self.min_elements or _threads <= 1:
            whole()
            return
        stats, one, probe = self._timings.choose(n)
        t0 = time.perf_counter()
        if one:
            whole()
        else:
            map_ranges(fn, n, self.min_elements)
        self._timings.record(stats, one, probe, time.perf_counter() - t0)


def elementwise(fn: Callable[[np.ndarray], np.ndarray],
                min_elements: int = COSTLY_MIN_ELEMENTS) -> Callable[[Any], Any]:
    """``fn`` (elementwise, keeping its input's shape and dtype) split over the intra-op
    threads, as TF shards its cwise kernels: a C-contiguous input of ``min_elements`` or
    more is cut into ranges (a :class:`Splitter`: split or not by the timings of both),
    each computed by ``fn`` (under the caller's numpy error state) into its slice of one
    output.  The values are those of one call (each element is computed alone)."""
    splitter = Splitter(min_elements)

    def split(x: Any) -> Any:
        if type(x) is not np.ndarray or x.size < min_elements or _threads <= 1 or \
                not x.flags.c_contiguous or x.dtype.kind not in "fc":
            return fn(x)
        flat = x.reshape(-1)
        out = np.empty(x.shape, x.dtype)
        out_flat = out.reshape(-1)
        errors = np.geterr()
        alone = []

        def run(lo: int, hi: int) -> None:
            with np.errstate(**errors):
                out_flat[lo:hi] = fn(flat[lo:hi])

        splitter(run, flat.size, lambda: alone.append(fn(x)))
        return alone[0] if alone else out

    return split


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
