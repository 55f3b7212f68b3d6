"""CPU kernels of the conditional accumulators (:mod:`graphcore.ops.accumulator_ops`),
living in the task's ResourceStore as TF's: a gradient applied with a local step below
the accumulator's global step is dropped; ``take`` blocks until enough gradients are in,
then returns their mean (per row for sparse ones) or sum, resets, and advances the step.
Closing the session wakes a blocked take with CancelledError."""

from __future__ import annotations

import threading

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.queue_kernels import shape_text
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.platform import tf_logging as logging


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


class _Accumulator:
    def __init__(self, name: str, dtype: np.dtype, shape: tuple | None, mean: bool):
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.mean = mean
        self.global_step = 0
        self.count = 0
        self._cancelled = False
        self.cond = threading.Condition()
        self._reset()

    def _reset(self) -> None:
        raise NotImplementedError

    def _add(self, grad: tuple) -> None:
        raise NotImplementedError

    def _result(self) -> tuple:
        raise NotImplementedError

    def apply(self, local_step: int, grad: tuple) -> None:
        with self.cond:
            if local_step < self.global_step:
                logging.warning("Dropping stale gradient: Received local_step %d but the "
                                "accumulator's global step is %d", local_step,
                                self.global_step)
                return
            self._add(grad)
            self.count += 1
            self.cond.notify_all()

    def take(self, num_required: int) -> tuple:
        if num_required < 1:
            raise _invalid(f"Argument num_required must be positive, but was {num_required}")
        with self.cond:
            while self.count < num_required:
                if self._cancelled:
                    raise errors.CancelledError(None, None, "TakeGrad operation was "
                                                            "cancelled")
                self.cond.wait()
            if self._cancelled:
                raise errors.CancelledError(None, None, "TakeGrad operation was cancelled")
            out = self._result()
            self._reset()
            self.count = 0
            self.global_step += 1
            return out

    def set_global_step(self, step: int) -> None:
        with self.cond:
            if step < self.global_step:
                logging.warning("ConditionalAccumulator: Attempted to set global step to %d "
                                "but it is already %d", step, self.global_step)
            self.global_step = step

    def num_accumulated(self) -> int:
        with self.cond:
            return self.count

    def cancel(self) -> None:
        with self.cond:
            self._cancelled = True
            self.cond.notify_all()

    def _check_shape(self, shape: tuple, what: str = "") -> None:
        if self.shape is not None and (len(self.shape) != len(shape) or any(
                d is not None and d != s for d, s in zip(self.shape, shape))):
            raise _invalid(f"Shape mismatch: expected {shape_text(self.shape)}, got "
                           f"{shape_text(shape)}{what}")


class DenseAccumulator(_Accumulator):
    def _reset(self) -> None:
        self._sum = None

    def _add(self, grad: tuple) -> None:
        (value,) = grad
        self._check_shape(value.shape)
        if self._sum is not None and self._sum.shape != value.shape:
            raise _invalid(f"Shape mismatch: expected {shape_text(self._sum.shape)}, got "
                           f"{shape_text(value.shape)}")
        # Fix the shape at the first gradient, as TF's accumulator does.
        self.shape = tuple(value.shape)
        self._sum = value.astype(self.dtype, copy=True) if self._sum is None \
            else self._sum + value

    def _result(self) -> tuple:
        total = self._sum
        return (total / self.dtype.type(self.count) if self.mean else total,)


class SparseAccumulator(_Accumulator):
    def _reset(self) -> None:
        self._rows: dict[int, np.ndarray] = {}
        self._counts: dict[int, int] = {}
        self._dense_shape = None

    def _add(self, grad: tuple) -> None:
        indices, values, shape, known = grad
        if values.ndim < 1 or values.shape[0] != indices.shape[0]:
            raise _invalid(f"Indices and values have incompatible shapes: "
                           f"{shape_text(indices.shape)} vs {shape_text(values.shape)}")
        if known:
            self._check_shape(tuple(int(d) for d in shape))
            if self._dense_shape is not None and tuple(self._dense_shape) != tuple(shape):
                raise _invalid(f"Shape mismatch: expected {shape_text(self._dense_shape)}, "
                               f"got {shape_text(shape)}")
            self._dense_shape = np.asarray(shape, np.int64)
        for i, row in zip(indices.tolist(), values):
            if i in self._rows:
                self._rows[i] = self._rows[i] + row
                self._counts[i] += 1
            else:
                self._rows[i] = np.array(row, dtype=self.dtype)
                self._counts[i] = 1
        self._row_shape = values.shape[1:]

    def _result(self) -> tuple:
        order = list(self._rows)  # first-applied order, as TF's
        rows = [self._rows[i] / self.dtype.type(self._counts[i]) if self.mean else self._rows[i]
                for i in order]
        values = np.stack(rows).astype(self.dtype) if rows else \
            np.zeros((0,) + tuple(getattr(self, "_row_shape", ())), self.dtype)
        if self._dense_shape is not None:
            shape = self._dense_shape
        elif self.shape is not None and all(d is not None for d in self.shape):
            shape = np.asarray(self.shape, np.int64)
        else:
            shape = np.asarray([-1] + list(values.shape[1:]), np.int64)
        return (np.asarray(order, np.int64), values, shape)


def _make(cls):
    def factory(ctx: KernelContext):
        attr = ctx.node_def.attr
        container = attr["container"].s.decode()
        shared = attr["shared_name"].s.decode()
        dtype = np.dtype(ctx.attr("dtype").as_numpy_dtype)
        shape_attr = attr["shape"].shape
        shape = None if shape_attr.unknown_rank else tuple(
            d.size if d.size >= 0 else None for d in shape_attr.dim)
        mean = attr["reduction_type"].s.decode() == "MEAN"
        node = ctx.name

        def create(unique_id: int):
            return cls(shared or f"_{unique_id}_{node}", dtype, shape, mean)

        store = ctx.resources
        return lambda: (store.resource(container, shared or node, create),)

    return factory


register_kernel("ResourceConditionalAccumulator")(_make(DenseAccumulator))
register_kernel("SparseConditionalAccumulator")(_make(SparseAccumulator))


@register_kernel("ResourceAccumulatorApplyGradient")
def _apply(ctx: KernelContext):
    def compute(handle, local_step, gradient):
        handle.apply(int(local_step), (np.asarray(gradient),))
        return ()

    return compute


@register_kernel("SparseAccumulatorApplyGradient")
def _sparse_apply(ctx: KernelContext):
    known = ctx.node_def.attr["has_known_shape"].b

    def compute(handle, local_step, indices, values, shape):
        handle.apply(int(local_step), (np.asarray(indices, np.int64).reshape(-1),
                                       np.asarray(values), np.asarray(shape, np.int64),
                                       known))
        return ()

    return compute


@register_kernel("ResourceAccumulatorTakeGradient")
@register_kernel("SparseAccumulatorTakeGradient")
def _take(ctx: KernelContext):
    del ctx
    return lambda handle, num_required: handle.take(int(num_required))


# The ref handles' AccumulatorNumAccumulated/AccumulatorSetGlobalStep kernels (with the
# dense ref accumulator in graphcore/train/sync_replicas_optimizer.py) serve the sparse
# accumulator too: it has their ``cond``, ``count`` and ``set_global_step``.
@register_kernel("ResourceAccumulatorNumAccumulated")
def _num_accumulated(ctx: KernelContext):
    del ctx
    return lambda handle: (np.int32(handle.num_accumulated()),)


@register_kernel("ResourceAccumulatorSetGlobalStep")
def _set_global_step(ctx: KernelContext):
    del ctx

    def compute(handle, new_global_step):
        handle.set_global_step(int(new_global_step))
        return ()

    return compute
