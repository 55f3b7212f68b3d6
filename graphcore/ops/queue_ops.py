"""Queues (TF's data_flow_ops queues): FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue,
PriorityQueue and their ops (FIFOQueueV2..., QueueEnqueueV2, QueueDequeueManyV2,
QueueCloseV2...). The queues themselves live in the task's resource store
(:mod:`graphcore.kernels.queue_kernels`)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry, tensor_util
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import random_ops

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase",
           "RandomShuffleQueue"]


def _unknown_outputs(op: Any) -> list:
    return [shape_lib.unknown_shape() for _ in op._outputs]


_QUEUE_ATTRS = ("shapes: list(shape) >= 0 = []", "capacity: int = -1",
                "container: string = ''", "shared_name: string = ''")


def _register_queue(op_type: str, *attrs: str, types: str = "list(type) >= 1") -> None:
    builder = op_registry.register_op(op_type).output("handle: resource") \
        .attr(f"component_types: {types}")
    for spec in attrs:
        builder = builder.attr(spec)
    builder.stateful().shape_fn(common_shapes.scalar_shape)


_register_queue("FIFOQueueV2", *_QUEUE_ATTRS)
_register_queue("PaddingFIFOQueueV2", *_QUEUE_ATTRS)
_register_queue("PriorityQueueV2", "shapes: list(shape) >= 0", *_QUEUE_ATTRS[1:],
                types="list(type) >= 0 = []")
_register_queue("RandomShuffleQueueV2", _QUEUE_ATTRS[0], _QUEUE_ATTRS[1],
                "min_after_dequeue: int = 0", "seed: int = 0", "seed2: int = 0",
                *_QUEUE_ATTRS[2:])

for _op in ("QueueEnqueueV2", "QueueEnqueueManyV2"):
    op_registry.register_op(_op).input("handle: resource").input("components: Tcomponents") \
        .attr("Tcomponents: list(type) >= 1").attr("timeout_ms: int = -1").stateful() \
        .shape_fn(common_shapes.no_outputs)

op_registry.register_op("QueueDequeueV2").input("handle: resource") \
    .output("components: component_types").attr("component_types: list(type) >= 1") \
    .attr("timeout_ms: int = -1").stateful().shape_fn(_unknown_outputs)

for _op in ("QueueDequeueManyV2", "QueueDequeueUpToV2"):
    op_registry.register_op(_op).input("handle: resource").input("n: int32") \
        .output("components: component_types").attr("component_types: list(type) >= 1") \
        .attr("timeout_ms: int = -1").stateful().shape_fn(_unknown_outputs)

op_registry.register_op("QueueCloseV2").input("handle: resource") \
    .attr("cancel_pending_enqueues: bool = false").stateful() \
    .shape_fn(common_shapes.no_outputs)

op_registry.register_op("QueueSizeV2").input("handle: resource").output("size: int32") \
    .stateful().shape_fn(common_shapes.scalar_shape)

op_registry.register_op("QueueIsClosedV2").input("handle: resource") \
    .output("is_closed: bool").stateful().shape_fn(common_shapes.scalar_shape)


# -- argument normalisation (TF's _as_type_list / _as_shape_list / _as_name_list) ---------
def _as_type_list(dtypes: Any) -> list[dtypes_lib.DType]:
    if isinstance(dtypes, (list, tuple)):
        return [dtypes_lib.as_dtype(t) for t in dtypes]
    return [dtypes_lib.as_dtype(dtypes)]


def _as_shape_list(shapes: Any, dtypes: list, unknown_dim_allowed: bool = False,
                   unknown_rank_allowed: bool = False) -> list | None:
    del dtypes
    if unknown_dim_allowed and (not isinstance(shapes, (list, tuple)) or not shapes or any(
            s is None or isinstance(s, int) for s in shapes)):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, shape_lib.TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("Shapes must be a TensorShape or a list or tuple of TensorShapes, "
                        f"got {type(shapes)} instead.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]  # a single shape
    shapes = [shape_lib.as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if not unknown_rank_allowed and any(s.dims is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names: Any, dtypes: list) -> list | None:
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)


class QueueBase:
    """Base class for queue implementations (TF's ``tf.queue.QueueBase``)."""

    def __init__(self, dtypes: list, shapes: list | None, names: list | None,
                 queue_ref: ops_lib.Tensor):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [shape_lib.TensorShape(s) for s in shapes]
        else:
            self._shapes = [shape_lib.unknown_shape() for _ in dtypes]
        if names is not None and len(names) != len(dtypes):
            raise ValueError("Queue names must have the same length as dtypes")
        self._names = names
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @property
    def queue_ref(self) -> ops_lib.Tensor:
        return self._queue_ref

    @property
    def name(self) -> str:
        return self._queue_ref.op.name

    @property
    def dtypes(self) -> list:
        return self._dtypes

    @property
    def shapes(self) -> list:
        return self._shapes

    @property
    def names(self) -> list | None:
        return self._names

    def _check_enqueue_dtypes(self, vals: Any) -> list[ops_lib.Tensor]:
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(
                    f"Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                    f"({sorted(vals.keys())}), Queue: ({sorted(self._names)})")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        return [convert_to_tensor(v, dtype=d, name=f"component_{i}")
                for i, (v, d) in enumerate(zip(vals, self._dtypes))]

    @staticmethod
    def _scope_vals(vals: Any) -> list:
        if isinstance(vals, (list, tuple)):
            return list(vals)
        if isinstance(vals, dict):
            return list(vals.values())
        return [vals]

    def enqueue(self, vals: Any, name: str | None = None) -> ops_lib.Operation:
        """Enqueues one element (a tensor, a list of tensors or a dict by ``names``)."""
        with ops_lib.name_scope(name, f"{self._name}_enqueue", self._scope_vals(vals)) \
                as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                val.shape.assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueV2", name=scope, handle=self._queue_ref,
                            components=vals)

    def enqueue_many(self, vals: Any, name: str | None = None) -> ops_lib.Operation:
        """Enqueues the elements the tensors of ``vals`` hold along dimension 0."""
        with ops_lib.name_scope(name, f"{self._name}_EnqueueMany", self._scope_vals(vals)) \
                as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = shape_lib.Dimension(vals[0].shape.with_rank_at_least(1)[0])
            for val, shape in zip(vals, self._shapes):
                batch_dim = batch_dim.merge_with(val.shape.with_rank_at_least(1)[0])
                val.shape[1:].assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueManyV2", name=scope, handle=self._queue_ref,
                            components=vals)

    def _dequeue_return_value(self, tensors: list) -> Any:
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def dequeue(self, name: str | None = None) -> Any:
        """Dequeues one element."""
        op = apply_op("QueueDequeueV2", name=name or f"{self._name}_Dequeue",
                      handle=self._queue_ref, component_types=self._dtypes)
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(shape)
        return self._dequeue_return_value(op.outputs)

    def dequeue_many(self, n: Any, name: str | None = None) -> Any:
        """Dequeues ``n`` elements concatenated along a new dimension 0."""
        op = apply_op("QueueDequeueManyV2", name=name or f"{self._name}_DequeueMany",
                      handle=self._queue_ref, n=n, component_types=self._dtypes)
        n_value = tensor_util.constant_value(op.inputs[1])
        batch = shape_lib.TensorShape([None if n_value is None else int(n_value)])
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(batch.concatenate(shape))
        return self._dequeue_return_value(op.outputs)

    def dequeue_up_to(self, n: Any, name: str | None = None) -> Any:
        """Dequeues up to ``n`` elements: fewer once the queue is closed."""
        op = apply_op("QueueDequeueUpToV2", name=name or f"{self._name}_DequeueUpTo",
                      handle=self._queue_ref, n=n, component_types=self._dtypes)
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(shape_lib.TensorShape([None]).concatenate(shape))
        return self._dequeue_return_value(op.outputs)

    def close(self, cancel_pending_enqueues: bool = False,
              name: str | None = None) -> ops_lib.Operation:
        """Closes the queue: no more enqueues; dequeues drain what is left."""
        return apply_op("QueueCloseV2", name=name or f"{self._name}_Close",
                        handle=self._queue_ref,
                        cancel_pending_enqueues=cancel_pending_enqueues)

    def is_closed(self, name: str | None = None) -> ops_lib.Tensor:
        return apply_op("QueueIsClosedV2", name=name or f"{self._name}_Is_Closed",
                        handle=self._queue_ref).outputs[0]

    def size(self, name: str | None = None) -> ops_lib.Tensor:
        return apply_op("QueueSizeV2", name=name or f"{self._name}_Size",
                        handle=self._queue_ref).outputs[0]


def _make_queue(op_type: str, name: str, **attrs: Any) -> ops_lib.Tensor:
    # Queues are created outside any control-dependency context (TF's init_scope).
    with ops_lib.control_dependencies(None):
        return apply_op(op_type, name=name, **attrs).outputs[0]


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in first-in first-out order."""

    def __init__(self, capacity: int, dtypes: Any, shapes: Any = None, names: Any = None,
                 shared_name: str | None = None, name: str = "fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        with ops_lib.device("CPU"):
            ref = _make_queue("FIFOQueueV2", name, component_types=dtypes,
                              shapes=shapes or [], capacity=capacity,
                              shared_name=shared_name or "")
        super().__init__(dtypes, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose ``dequeue_many`` pads components of unknown dimensions."""

    def __init__(self, capacity: int, dtypes: Any, shapes: Any, names: Any = None,
                 shared_name: str | None = None, name: str = "padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError(f"Shapes must be provided for all components, but received "
                             f"{len(dtypes)} dtypes and {len(shapes)} shapes.")
        ref = _make_queue("PaddingFIFOQueueV2", name, component_types=dtypes, shapes=shapes,
                          capacity=capacity, shared_name=shared_name or "")
        super().__init__(dtypes, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues elements in a random order."""

    def __init__(self, capacity: int, min_after_dequeue: int, dtypes: Any, shapes: Any = None,
                 names: Any = None, seed: int | None = None, shared_name: str | None = None,
                 name: str = "random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = random_ops.get_seed(seed)
        ref = _make_queue("RandomShuffleQueueV2", name, component_types=dtypes,
                          shapes=shapes or [], capacity=capacity,
                          min_after_dequeue=min_after_dequeue, seed=seed1 or 0,
                          seed2=seed2 or 0, shared_name=shared_name or "")
        super().__init__(dtypes, shapes, names, ref)


class PriorityQueue(QueueBase):
    """A queue dequeuing the element of least priority (an int64 first component) first."""

    def __init__(self, capacity: int, types: Any, shapes: Any = None, names: Any = None,
                 shared_name: str | None = None, name: str = "priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes, types)
        ref = _make_queue("PriorityQueueV2", name, component_types=types,
                          shapes=shapes or [], capacity=capacity,
                          shared_name=shared_name or "")
        priority_dtypes = [dtypes_lib.int64] + types
        priority_shapes = [()] + shapes if shapes else shapes
        super().__init__(priority_dtypes, priority_shapes, names, ref)
