"""CPU kernels of the queue ops (:mod:`graphcore.ops.queue_ops`): FIFO, random-shuffle,
padding-FIFO and priority queues living in the task's ResourceStore.

A queue is shared by every step of every thread: an enqueue blocks while the queue is
full, a dequeue while it holds too few elements, each on the queue's condition variable,
so queue-runner threads feed a training loop through concurrent ``Session.run`` calls.
Closing a queue makes dequeues that cannot be served raise OutOfRangeError; closing the
session (clearing the store) wakes every blocked call with CancelledError.
"""

from __future__ import annotations

import heapq
import itertools
import os
import threading
import time
from collections import deque
from typing import Any

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import philox
from graphcore.kernels.registry import KernelContext, register_kernel


def shape_text(shape: Any) -> str:
    return "[" + ",".join("?" if d is None or d < 0 else str(d) for d in shape) + "]"


def _declared_shapes(ctx: KernelContext) -> list[tuple | None] | None:
    """The ``shapes`` attr as tuples (None dims unknown), or None when not given."""
    shapes = ctx.node_def.attr["shapes"].list.shape
    if not shapes:
        return None
    return [None if s.unknown_rank else tuple(d.size if d.size >= 0 else None for d in s.dim)
            for s in shapes]


def _compatible(declared: tuple | None, actual: tuple) -> bool:
    if declared is None:
        return True
    return len(declared) == len(actual) and all(
        d is None or d == a for d, a in zip(declared, actual))


class QueueResource:
    """Elements (tuples of component arrays) behind a condition variable."""

    kind = "FIFOQueue"

    def __init__(self, name: str, dtypes: list[np.dtype], shapes: list[tuple | None] | None,
                 capacity: int):
        self.name = name
        self.dtypes = dtypes
        self.shapes = shapes
        self.capacity = capacity if capacity >= 0 else None
        self.closed = False
        self._cancelled = False
        self._cancel_enqueues = False
        self._cond = threading.Condition()

    # -- storage, per kind ---------------------------------------------------------------
    def _size(self) -> int:
        raise NotImplementedError

    def _put(self, element: tuple) -> None:
        raise NotImplementedError

    def _take(self) -> tuple:
        raise NotImplementedError

    def _ready(self, n: int) -> bool:
        """Whether ``n`` elements may be dequeued now (the queue being open)."""
        return self._size() >= n

    def _stack(self, elements: list[tuple]) -> list[np.ndarray]:
        return [np.stack([e[i] for e in elements]) if elements else
                np.zeros((0,) + tuple(self.shapes[i]), self.dtypes[i])
                for i in range(len(self.dtypes))]

    # -- the ops -------------------------------------------------------------------------
    def size(self) -> int:
        with self._cond:
            return self._size()

    def _wait(self, deadline: float | None, what: str) -> None:
        if self._cancelled:
            raise errors.CancelledError(None, None, f"{what} operation was cancelled")
        if deadline is None:
            self._cond.wait()
        else:
            left = deadline - time.monotonic()
            if left <= 0 or not self._cond.wait(left):
                raise errors.DeadlineExceededError(
                    None, None, "Timed out waiting for notification")
        if self._cancelled:
            raise errors.CancelledError(None, None, f"{what} operation was cancelled")

    def _check_element(self, components: list[np.ndarray], many: bool) -> None:
        for i, value in enumerate(components):
            shape = value.shape[1:] if many else value.shape
            if self.shapes is not None and not _compatible(self.shapes[i], shape):
                want = self.shapes[i]
                got = value.shape
                if many:
                    want = (value.shape[0],) + tuple(want)
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch in tuple component {i}. Expected "
                                f"{shape_text(want)}, got {shape_text(got)}")

    def enqueue(self, components: list[np.ndarray], many: bool, timeout_ms: int) -> None:
        if len(components) != len(self.dtypes):
            raise errors.InvalidArgumentError(
                None, None, f"Expected {len(self.dtypes)} components, got {len(components)}")
        self._check_element(components, many)
        if many:
            sizes = {c.shape[0] if c.ndim else None for c in components}
            if len(sizes) != 1 or None in sizes:
                raise errors.InvalidArgumentError(
                    None, None, "Expected all components to have the same size in dimension "
                                "0 for EnqueueMany")
            elements = [tuple(c[j] for c in components) for j in range(sizes.pop())]
        else:
            elements = [tuple(components)]
        deadline = time.monotonic() + timeout_ms / 1000 if timeout_ms >= 0 else None
        with self._cond:
            if self.closed:
                raise errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")
            for element in elements:
                # An enqueue pending at a close stays pending (TF's), until a close that
                # cancels pending enqueues or the session's end.
                while (self.closed or self.capacity is not None
                       and self._size() >= self.capacity):
                    self._wait(deadline, "Enqueue")
                    if self._cancel_enqueues:
                        raise errors.CancelledError(None, None,
                                                    "Enqueue operation was cancelled")
                self._put(element)
                self._cond.notify_all()

    def dequeue(self, n: int | None, up_to: bool, timeout_ms: int) -> list[np.ndarray]:
        """One element (``n`` None) or a batch of ``n``; ``up_to`` takes what is left once
        the queue is closed."""
        count = 1 if n is None else n
        if n is not None:
            if n < 0:
                raise errors.InvalidArgumentError(
                    None, None, f"Dequeue requested a negative number of elements: {n}")
            self._check_batchable()
        deadline = time.monotonic() + timeout_ms / 1000 if timeout_ms >= 0 else None
        with self._cond:
            while True:
                if self.closed:
                    size = self._size()
                    if size >= count or (up_to and size > 0):
                        count = min(count, size)
                        break
                    raise errors.OutOfRangeError(
                        None, None, f"{self.kind} '{self.name}' is closed and has "
                                    f"insufficient elements (requested {count}, current "
                                    f"size {size})")
                if self._ready(count):
                    break
                self._wait(deadline, "Dequeue")
            elements = [self._take() for _ in range(count)]
            self._cond.notify_all()
        if n is None:
            return list(elements[0])
        return self._stack(elements)

    def _check_batchable(self) -> None:
        if self.shapes is None or any(s is None or None in s for s in self.shapes):
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind}'s DequeueMany and DequeueUpTo require the "
                            "components to have specified shapes.")

    def close(self, cancel_pending_enqueues: bool) -> None:
        with self._cond:
            self.closed = True
            if cancel_pending_enqueues:
                self._cancel_enqueues = True
            self._cond.notify_all()

    def cancel(self) -> None:
        """Wakes every blocked call with CancelledError (the session is closing)."""
        with self._cond:
            self._cancelled = True
            self._cond.notify_all()


class FIFOQueueResource(QueueResource):
    kind = "FIFOQueue"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._items: deque = deque()

    def _size(self) -> int:
        return len(self._items)

    def _put(self, element: tuple) -> None:
        self._items.append(element)

    def _take(self) -> tuple:
        return self._items.popleft()


class PaddingFIFOQueueResource(FIFOQueueResource):
    """A FIFO queue whose batches pad each component to the batch's largest shape."""

    kind = "PaddingFIFOQueue"

    def _check_batchable(self) -> None:
        return None

    def _stack(self, elements: list[tuple]) -> list[np.ndarray]:
        out = []
        for i, dtype in enumerate(self.dtypes):
            parts = [e[i] for e in elements]
            if parts:
                full = tuple(max(p.shape[d] for p in parts) for d in range(parts[0].ndim))
            else:
                full = tuple(0 if d is None else d for d in self.shapes[i])
            fill = b"" if dtype.kind == "O" else 0
            batch = np.full((len(parts),) + full, fill, dtype=dtype)
            for j, p in enumerate(parts):
                batch[(j,) + tuple(slice(0, d) for d in p.shape)] = p
            out.append(batch)
        return out


class RandomShuffleQueueResource(QueueResource):
    """Dequeues a uniformly random element, keeping ``min_after_dequeue`` behind until
    the queue is closed."""

    kind = "RandomShuffleQueue"

    def __init__(self, name: str, dtypes: list, shapes: Any, capacity: int,
                 min_after_dequeue: int, seed: int, seed2: int) -> None:
        super().__init__(name, dtypes, shapes, capacity)
        self.min_after_dequeue = min_after_dequeue
        self._items: list = []
        # TF's generator: Philox one uint32 at a time; (0, 0) seeds at random.
        if seed == 0 and seed2 == 0:
            seed, seed2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
        self._draw = philox.SingleSample(philox.Philox.from_seeds(seed, seed2))

    def _size(self) -> int:
        return len(self._items)

    def _ready(self, n: int) -> bool:
        return len(self._items) - n >= self.min_after_dequeue

    def _put(self, element: tuple) -> None:
        self._items.append(element)

    def _take(self) -> tuple:
        # TF's DequeueLocked: the element at draw % size, the last one moved into its place.
        items = self._items
        j = self._draw() % len(items)
        items[j], items[-1] = items[-1], items[j]
        return items.pop()


class PriorityQueueResource(QueueResource):
    """Dequeues the element of least priority (component 0, an int64 scalar) first."""

    kind = "PriorityQueue"

    def __init__(self, name: str, dtypes: list, shapes: Any, capacity: int) -> None:
        # The priority is an implicit first component (the attrs list the others).
        super().__init__(name, [np.dtype(np.int64)] + dtypes,
                         None if shapes is None else [()] + shapes, capacity)
        self._heap: list = []
        self._order = itertools.count()

    def _size(self) -> int:
        return len(self._heap)

    def _put(self, element: tuple) -> None:
        heapq.heappush(self._heap, (int(element[0]), next(self._order), element))

    def _take(self) -> tuple:
        return heapq.heappop(self._heap)[2]


def _queue_op(make: Any):
    """A queue-creating kernel: the handle is the store's queue for the node."""

    def factory(ctx: KernelContext):
        attr = ctx.node_def.attr
        container = attr["container"].s.decode()
        shared = attr["shared_name"].s.decode()
        dtypes = [np.dtype(t.as_numpy_dtype) for t in ctx.attr("component_types")]
        shapes = _declared_shapes(ctx)
        node = ctx.name

        def create(unique_id: int) -> QueueResource:
            return make(ctx, shared or f"_{unique_id}_{node}", dtypes, shapes,
                        attr["capacity"].i)

        store = ctx.resources
        return lambda: (store.resource(container, shared or node, create),)

    return factory


register_kernel("FIFOQueueV2")(_queue_op(
    lambda ctx, *args: FIFOQueueResource(*args)))
register_kernel("PaddingFIFOQueueV2")(_queue_op(
    lambda ctx, *args: PaddingFIFOQueueResource(*args)))
register_kernel("PriorityQueueV2")(_queue_op(
    lambda ctx, *args: PriorityQueueResource(*args)))
register_kernel("RandomShuffleQueueV2")(_queue_op(
    lambda ctx, *args: RandomShuffleQueueResource(
        *args, ctx.node_def.attr["min_after_dequeue"].i, ctx.node_def.attr["seed"].i,
        ctx.node_def.attr["seed2"].i)))



@register_kernel("QueueEnqueueV2")
@register_kernel("QueueEnqueueManyV2")
def _enqueue(ctx: KernelContext):
    many = ctx.op_type == "QueueEnqueueManyV2"
    timeout = ctx.node_def.attr["timeout_ms"].i

    def compute(queue, *components):
        queue.enqueue([np.asarray(c) for c in components], many, timeout)
        return ()

    return compute


@register_kernel("QueueDequeueV2")
def _dequeue(ctx: KernelContext):
    timeout = ctx.node_def.attr["timeout_ms"].i
    return lambda queue: tuple(queue.dequeue(None, False, timeout))


@register_kernel("QueueDequeueManyV2")
@register_kernel("QueueDequeueUpToV2")
def _dequeue_many(ctx: KernelContext):
    timeout = ctx.node_def.attr["timeout_ms"].i
    up_to = ctx.op_type == "QueueDequeueUpToV2"
    return lambda queue, n: tuple(queue.dequeue(int(n), up_to, timeout))


@register_kernel("QueueCloseV2")
def _close(ctx: KernelContext):
    cancel = ctx.node_def.attr["cancel_pending_enqueues"].b

    def compute(queue):
        queue.close(cancel)
        return ()

    return compute


@register_kernel("QueueSizeV2")
def _size(ctx: KernelContext):
    del ctx
    return lambda queue: (np.int32(queue.size()),)


@register_kernel("QueueIsClosedV2")
def _is_closed(ctx: KernelContext):
    del ctx
    return lambda queue: (np.bool_(queue.closed),)
