"""CPU kernels of the TensorArray ops: a TensorArrayV3 run makes a new per-step
:class:`_TensorArray` (like StackV2's stacks), the other ops read and write it through
its handle. Gradient arrays hang off their forward array by ``source`` and sum repeated
writes to a slot, as TF's TensorArrayGradV3."""

from __future__ import annotations

import itertools
import threading

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel

# TF names each run's array <name>_<process-wide counter> (messages show it).
_ids = itertools.count()


def _partial_shape(proto) -> tuple | None:
    """A TensorShapeProto as None (unknown rank) or a tuple with -1 for unknown dims."""
    if proto.unknown_rank:
        return None
    return tuple(int(d.size) for d in proto.dim)


def _shape_text(shape: tuple | None) -> str:
    if shape is None:
        return "<unknown>"
    return "[" + ",".join("?" if d < 0 else str(d) for d in shape) + "]"


def _compatible(shape: tuple | None, actual: tuple) -> bool:
    if shape is None:
        return True
    return len(shape) == len(actual) and all(d < 0 or d == a for d, a in zip(shape, actual))


def _fully_defined(shape: tuple | None) -> bool:
    return shape is not None and all(d >= 0 for d in shape)


class _TensorArray:
    """One run's TensorArray: slots that are written once (summed, for a gradient
    array), read (and cleared, with clear_after_read) and grown when dynamic_size."""

    def __init__(self, name: str, dtype: np.dtype, size: int, dynamic_size: bool,
                 clear_after_read: bool, element_shape: tuple | None,
                 identical_element_shapes: bool, aggregate: bool = False):
        self.name = name
        self.dtype = dtype
        self.values: list = [None] * size
        self.read_flags = [False] * size
        self.cleared = [False] * size
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.element_shape = element_shape
        self.identical_element_shapes = identical_element_shapes
        self.aggregate = aggregate
        self.grads: dict[str, _TensorArray] = {}
        self.closed = False
        self.lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<TensorArray {self.name} ({len(self.values)} elements)>"

    def _error(self, message: str) -> errors.InvalidArgumentError:
        return errors.InvalidArgumentError(None, None, f"TensorArray {self.name}: {message}")

    def write(self, index: int, value: np.ndarray) -> None:
        size = len(self.values)
        if index < 0 or index >= size:
            if not self.dynamic_size or index < 0:
                raise self._error(f"Tried to write to index {index} but array is not "
                                  f"resizeable and size is: {size}")
            grow = index + 1 - size
            self.values.extend([None] * grow)
            self.read_flags.extend([False] * grow)
            self.cleared.extend([False] * grow)
        if not _compatible(self.element_shape, value.shape):
            raise self._error(
                f"Could not write to TensorArray index {index} because the value shape is "
                f"{_shape_text(value.shape)} which is incompatible with the TensorArray's "
                f"inferred element shape: {_shape_text(self.element_shape)} (consider "
                "setting infer_shape=False).")
        if self.identical_element_shapes:
            self.element_shape = value.shape
        if self.read_flags[index]:
            raise self._error(f"Could not write to TensorArray index {index} because it has "
                              "already been read.")
        existing = self.values[index]
        if existing is not None:
            if not self.aggregate:
                raise self._error(f"Could not write to TensorArray index {index} because it "
                                  "has already been written to.")
            if existing.shape != value.shape:
                raise self._error(
                    f"Could not aggregate to TensorArray index {index} because the existing "
                    f"shape is {_shape_text(existing.shape)} but the new input shape is "
                    f"{_shape_text(value.shape)}.")
            self.values[index] = existing + value
            return
        # A copy: the executor may update a value in place after its last read.
        self.values[index] = np.array(value, dtype=self.dtype, copy=True)

    def read(self, index: int) -> np.ndarray:
        size = len(self.values)
        if index < 0 or index >= size:
            raise errors.InvalidArgumentError(
                None, None, f"Tried to read from index {index} but array size is: {size}")
        if self.cleared[index]:
            raise self._error(f"Could not read index {index} twice because it was cleared "
                              "after a previous read (perhaps try setting clear_after_read = "
                              "false?).")
        value = self.values[index]
        if value is None:
            if not _fully_defined(self.element_shape):
                raise self._error(
                    f"Could not read from TensorArray index {index}.  Furthermore, the "
                    f"element shape is not fully defined: {_shape_text(self.element_shape)}."
                    "  It is possible you are working with a resizeable TensorArray and "
                    "stop_gradients is not allowing the gradients to be written.  If you set "
                    "the full element_shape property on the forward TensorArray, the proper "
                    "all-zeros tensor will be returned instead of incurring this error.")
            value = np.zeros(self.element_shape, self.dtype)
        self.read_flags[index] = True
        if self.clear_after_read:
            self.values[index] = None
            self.cleared[index] = True
        return value

    def grad(self, source: str, shape_to_prepend: tuple = ()) -> _TensorArray:
        g = self.grads.get(source)
        if g is None:
            element_shape = (None if self.element_shape is None
                             else tuple(shape_to_prepend) + self.element_shape)
            g = _TensorArray(f"{self.name}@{source}", self.dtype, len(self.values), False,
                             True, element_shape, self.identical_element_shapes,
                             aggregate=True)
            self.grads[source] = g
        return g


def _stacked(ta: _TensorArray, indices, empty_shape: tuple | None) -> np.ndarray:
    values = [ta.read(int(i)) for i in np.reshape(indices, -1)]
    if not values:
        if not _fully_defined(empty_shape):
            raise errors.UnimplementedError(
                None, None, "TensorArray has size zero, but element shape "
                f"{_shape_text(empty_shape)} is not fully defined. Currently only static "
                "shapes are supported when packing zero-size TensorArrays.")
        return np.zeros((0,) + empty_shape, ta.dtype)
    first = values[0].shape
    for i, v in enumerate(values[1:], 1):
        if v.shape != first:
            raise errors.InvalidArgumentError(
                None, None, "TensorArray has inconsistent shapes.  Index 0 has shape: "
                f"{_shape_text(first)} but index {i} has shape: {_shape_text(v.shape)}")
    return np.stack(values)


@register_kernel("TensorArrayV3")
def _tensor_array_v3(ctx: KernelContext):
    name = ctx.attr("tensor_array_name") or ctx.name
    if isinstance(name, bytes):
        name = name.decode()
    dtype = ctx.attr("dtype").as_numpy_dtype
    dynamic_size = bool(ctx.attr("dynamic_size"))
    clear_after_read = bool(ctx.attr("clear_after_read"))
    identical = bool(ctx.attr("identical_element_shapes"))
    element_shape = _partial_shape(ctx.attr("element_shape"))

    def compute(size):
        if int(size) < 0:
            raise errors.InvalidArgumentError(None, None,
                                              f"Size should be >= 0, but saw: {int(size)}")
        ta = _TensorArray(f"{name}_{next(_ids)}", dtype, int(size), dynamic_size,
                          clear_after_read, element_shape, identical)
        return ta, np.float32(0)

    return compute


@register_kernel("TensorArrayGradV3")
def _tensor_array_grad_v3(ctx: KernelContext):
    source = ctx.attr("source")
    if isinstance(source, bytes):
        source = source.decode()

    def compute(handle, flow):
        with handle.lock:
            return handle.grad(source), flow

    return compute


@register_kernel("TensorArrayGradWithShape")
def _tensor_array_grad_with_shape(ctx: KernelContext):
    source = ctx.attr("source")
    if isinstance(source, bytes):
        source = source.decode()

    def compute(handle, flow, shape_to_prepend):
        prefix = tuple(int(d) for d in np.reshape(shape_to_prepend, -1))
        with handle.lock:
            return handle.grad(source, prefix), flow

    return compute


@register_kernel("TensorArrayWriteV3")
def _tensor_array_write_v3(ctx: KernelContext):
    del ctx

    def compute(handle, index, value, flow):
        with handle.lock:
            handle.write(int(index), np.asarray(value))
        return (flow,)

    return compute


@register_kernel("TensorArrayReadV3")
def _tensor_array_read_v3(ctx: KernelContext):
    del ctx

    def compute(handle, index, flow):
        with handle.lock:
            return (handle.read(int(index)),)

    return compute


@register_kernel("TensorArrayGatherV3")
def _tensor_array_gather_v3(ctx: KernelContext):
    element_shape = _partial_shape(ctx.attr("element_shape"))

    def compute(handle, indices, flow):
        with handle.lock:
            return (_stacked(handle, indices, element_shape),)

    return compute


@register_kernel("TensorArrayScatterV3")
def _tensor_array_scatter_v3(ctx: KernelContext):
    del ctx

    def compute(handle, indices, value, flow):
        indices = np.reshape(indices, -1)
        value = np.asarray(value)
        if value.ndim == 0 or value.shape[0] != len(indices):
            raise errors.InvalidArgumentError(
                None, None, "Expected len(indices) == values.shape[0], but saw: "
                f"{len(indices)} vs. {value.shape[0] if value.ndim else 0}")
        with handle.lock:
            for i, index in enumerate(indices):
                handle.write(int(index), value[i])
        return (flow,)

    return compute


@register_kernel("TensorArrayConcatV3")
def _tensor_array_concat_v3(ctx: KernelContext):
    except0 = _partial_shape(ctx.attr("element_shape_except0"))

    def compute(handle, flow):
        with handle.lock:
            values = [handle.read(i) for i in range(len(handle.values))]
        for i, v in enumerate(values):
            if v.ndim == 0:
                raise errors.InvalidArgumentError(
                    None, None, f"Concat saw a scalar shape at index {i} but requires at "
                    "least vectors.  Did you mean to call stack instead?")
            if v.shape[1:] != values[0].shape[1:]:
                raise errors.InvalidArgumentError(
                    None, None, "TensorArray has inconsistent shapes.  Index 0 has "
                    f"(excepting dimension 0) shape: {_shape_text(values[0].shape[1:])} but "
                    f"index {i} has (excepting dimension 0) shape: "
                    f"{_shape_text(v.shape[1:])}")
        lengths = np.array([v.shape[0] for v in values], np.int64)
        if not values:
            if not _fully_defined(except0):
                raise errors.UnimplementedError(
                    None, None, "TensorArray has size zero, but element_shape_except0 "
                    f"{_shape_text(except0)} is not fully defined. Currently only static "
                    "shapes are supported when concatenating zero-size TensorArrays.")
            return np.zeros((0,) + except0, handle.dtype), lengths
        return np.concatenate(values), lengths

    return compute


@register_kernel("TensorArraySplitV3")
def _tensor_array_split_v3(ctx: KernelContext):
    del ctx

    def compute(handle, value, lengths, flow):
        value = np.asarray(value)
        lengths = np.reshape(lengths, -1).astype(np.int64)
        if value.ndim == 0:
            raise errors.InvalidArgumentError(
                None, None, "Expected value to be at least a vector, but received shape: "
                f"{_shape_text(value.shape)}")
        if int(lengths.sum()) != value.shape[0]:
            raise errors.InvalidArgumentError(
                None, None, "Expected sum of lengths to be equal to values.shape[0], but sum "
                f"of lengths is {int(lengths.sum())} and value's shape is: "
                f"{_shape_text(value.shape)}")
        with handle.lock:
            if not handle.dynamic_size and len(lengths) > len(handle.values):
                raise handle._error(f"Expected lengths to be a vector of size at most "
                                    f"{len(handle.values)}, but saw size: {len(lengths)}")
            starts = np.concatenate([[0], np.cumsum(lengths)])
            for i in range(len(lengths)):
                handle.write(i, value[starts[i]:starts[i + 1]])
        return (flow,)

    return compute


@register_kernel("TensorArraySizeV3")
def _tensor_array_size_v3(ctx: KernelContext):
    del ctx

    def compute(handle, flow):
        with handle.lock:
            return (np.int32(len(handle.values)),)

    return compute


@register_kernel("TensorArrayCloseV3")
def _tensor_array_close_v3(ctx: KernelContext):
    del ctx

    def compute(handle):
        with handle.lock:
            handle.closed = True
            handle.values = [None] * len(handle.values)
        return ()

    return compute
