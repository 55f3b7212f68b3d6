"""Queue-based input pipelines (TF's training/input.py): input producers feeding a queue
from a tensor (``string_input_producer``, ``range_input_producer``,
``slice_input_producer``, ``input_producer``), ``limit_epochs``, and the batchers
(``batch``, ``batch_join``, ``shuffle_batch``, ``shuffle_batch_join`` and their
``maybe_`` forms) that run enqueue ops in QueueRunner threads."""

from __future__ import annotations

import itertools
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework import tensor_util
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    control_flow_ops,
    math_ops,
    random_ops,
    scatter_ops,
    variables,
)
from graphcore.ops.count_up_to_ops import count_up_to
from graphcore.ops.queue_ops import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue
from graphcore.ops.reader_ops import matching_files
from graphcore.summary import summary_ops
from graphcore.train import queue_runner

__all__ = ["batch", "batch_join", "input_producer", "limit_epochs", "match_filenames_once",
           "maybe_batch",
           "maybe_batch_join", "maybe_shuffle_batch", "maybe_shuffle_batch_join",
           "range_input_producer", "shuffle_batch", "shuffle_batch_join",
           "slice_input_producer", "string_input_producer"]


def match_filenames_once(pattern: Any, name: str | None = None) -> variables.Variable:
    """A local variable holding the files matching ``pattern``, computed once when it is
    initialized."""
    with ops_lib.name_scope(name, "matching_filenames", [pattern]) as name:
        return variables.Variable(matching_files(pattern), name=name, trainable=False,
                                  validate_shape=False,
                                  collections=[ops_lib.GraphKeys.LOCAL_VARIABLES])


def limit_epochs(tensor: Any, num_epochs: int | None = None,
                 name: str | None = None) -> ops_lib.Tensor:
    """``tensor``, which raises OutOfRangeError after ``num_epochs`` evaluations."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with ops_lib.name_scope(name, "limit_epochs", [tensor]) as name:
        zero64 = convert_to_tensor(0, dtype=dtypes_lib.int64)
        epochs = variables.Variable(zero64, name="epochs", trainable=False,
                                    collections=[ops_lib.GraphKeys.LOCAL_VARIABLES])
        counter = count_up_to(epochs._variable, limit=num_epochs)
        with ops_lib.control_dependencies([counter]):
            return array_ops.identity(tensor, name=name)


def _fraction_full(name: str, size: Any, capacity: int, offset: int = 0) -> None:
    size = math_ops.cast(size if not offset else math_ops.maximum(0, size - offset),
                         dtypes_lib.float32)
    summary_ops.scalar(name, size * (1. / capacity))


def input_producer(input_tensor: Any, element_shape: Any = None, num_epochs: int | None = None,
                   shuffle: bool = True, seed: int | None = None, capacity: int = 32,
                   shared_name: str | None = None, summary_name: str | None = None,
                   name: str | None = None, cancel_op: Any = None) -> FIFOQueue:
    """A FIFO queue fed (by a QueueRunner) with the rows of ``input_tensor``, shuffled per
    epoch when ``shuffle``, for ``num_epochs`` epochs (forever when None)."""
    with ops_lib.name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(
            shape_lib.as_shape(element_shape) if element_shape is not None
            else shape_lib.unknown_shape())
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype],
                      shapes=[element_shape], shared_name=shared_name, name=name)
        enq = q.enqueue_many([input_tensor])
        queue_runner.add_queue_runner(queue_runner.QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            _fraction_full(summary_name, q.size(), capacity)
        return q


def string_input_producer(string_tensor: Any, num_epochs: int | None = None,
                          shuffle: bool = True, seed: int | None = None, capacity: int = 32,
                          shared_name: str | None = None, name: str | None = None,
                          cancel_op: Any = None) -> FIFOQueue:
    """A queue of the strings (file names) of ``string_tensor``, for ``num_epochs``."""
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, ops_lib.Tensor) and not string_tensor:
        raise ValueError(not_null_err)
    with ops_lib.name_scope(name, "input_producer", [string_tensor]) as name:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes_lib.string)
        with ops_lib.control_dependencies([control_flow_ops.Assert(
                math_ops.greater(array_ops.size(string_tensor), 0), [not_null_err])]):
            string_tensor = array_ops.identity(string_tensor)
        return input_producer(input_tensor=string_tensor, shuffle=shuffle, seed=seed,
                              num_epochs=num_epochs, capacity=capacity,
                              shared_name=shared_name, name=name,
                              summary_name=f"fraction_of_{capacity}_full",
                              cancel_op=cancel_op)


def range_input_producer(limit: Any, num_epochs: int | None = None, shuffle: bool = True,
                         seed: int | None = None, capacity: int = 32,
                         shared_name: str | None = None, name: str | None = None) -> FIFOQueue:
    """A queue of the integers 0 .. ``limit`` - 1, for ``num_epochs``."""
    with ops_lib.name_scope(name, "input_producer", [limit]) as name:
        range_tensor = math_ops.range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity,
                              shared_name, f"fraction_of_{capacity}_full", name)


def slice_input_producer(tensor_list: list, num_epochs: int | None = None,
                         shuffle: bool = True, seed: int | None = None, capacity: int = 32,
                         shared_name: str | None = None, name: str | None = None) -> list:
    """One row (the same index) of every tensor of ``tensor_list`` per dequeue."""
    with ops_lib.name_scope(name, "input_producer", tensor_list):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle,
                                     seed=seed, capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [array_ops.gather(t, index) for t in tensor_list]


# -- batching ------------------------------------------------------------------------------
def _as_tensor_list(tensors: Any) -> list:
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def _as_tensor_list_list(tensors_list: Any) -> list:
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected_keys = set(tensors_list[0].keys())
        for tensors in tensors_list[1:]:
            if set(tensors.keys()) != expected_keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(tensors) for tensors in tensors_list]
    return tensors_list


def _as_original_type(original_tensors: Any, tensor_list: Any) -> Any:
    if isinstance(original_tensors, dict):
        if len(original_tensors) == 1:
            # A queue of one component dequeues a tensor, not a list (TF's b/28117485).
            tensor_list = [tensor_list]
        return {k: tensor_list[i] for i, k in enumerate(sorted(original_tensors, key=str))}
    return tensor_list


def _validate(tensor_list: Any) -> list:
    tensor_list = [convert_to_tensor(t) for t in tensor_list]
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def _validate_keep_input(keep_input: Any, enqueue_many: bool) -> ops_lib.Tensor:
    keep_input = convert_to_tensor(keep_input)
    if keep_input.shape.ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep_input.shape.ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep_input.shape.ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _dtypes(tensor_list_list: list) -> list:
    all_types = [[t.dtype for t in tl] for tl in tensor_list_list]
    types = all_types[0]
    for other in all_types[1:]:
        if other != types:
            raise TypeError(f"Expected types to be consistent: "
                            f"{', '.join(x.name for x in types)} vs. "
                            f"{', '.join(x.name for x in other)}.")
    return types


def _merge_shapes(shape_list: list, enqueue_many: bool) -> list:
    shape_list = [shape_lib.as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [s.with_rank_at_least(1)[1:] for s in shape_list]
    merged = shape_list[0]
    for s in shape_list[1:]:
        merged.merge_with(s)
    return merged.as_list()


def _shapes(tensor_list_list: list, shapes: Any, enqueue_many: bool) -> list:
    if shapes is None:
        len0 = len(tensor_list_list[0])
        for tl in tensor_list_list:
            for i in range(len0):
                if tl[i].shape.ndims is None:
                    raise ValueError(f"Cannot infer Tensor's rank: {tl[i]}")
        shapes = [_merge_shapes([tl[i].shape.as_list() for tl in tensor_list_list],
                                enqueue_many) for i in range(len0)]
    return shapes


def _select_which_to_enqueue(tensor_list: list, keep_input: Any) -> list:
    """The rows of each tensor whose ``keep_input`` entry is true."""
    select = math_ops.cast(keep_input, dtypes_lib.int32)
    return [scatter_ops.dynamic_partition(x, select, num_partitions=2)[1] for x in tensor_list]


def _enqueue_op(queue: Any, tensor_list: list, enqueue_many: bool, keep_input: Any) -> Any:
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input.shape.ndims == 1:
        return enqueue_fn(_select_which_to_enqueue(tensor_list, keep_input))
    static = tensor_util.constant_value(keep_input)
    if static is not None:  # TF's smart_cond: a constant predicate picks its branch
        return enqueue_fn(tensor_list) if bool(static) else control_flow_ops.no_op()
    return control_flow_ops.cond(keep_input, lambda: enqueue_fn(tensor_list),
                                 control_flow_ops.no_op)


def _enqueue(queue: Any, tensor_list_list: list, join: bool, threads: int,
             enqueue_many: bool, keep_input: Any) -> None:
    """A QueueRunner of one enqueue op per tensor list (``join``), else of ``threads``
    copies of the one list's enqueue op."""
    if join:
        enqueue_ops = [_enqueue_op(queue, tl, enqueue_many, keep_input)
                       for tl in tensor_list_list]
    else:
        enqueue_ops = [_enqueue_op(queue, tensor_list_list[0], enqueue_many,
                                   keep_input)] * threads
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, enqueue_ops))


def _scope_values(tensor_list_list: list, keep_input: Any) -> list:
    return list(itertools.chain.from_iterable(tensor_list_list)) + [keep_input]


def _validate_all(tensor_list_list: list, keep_input: Any, shapes: Any,
                  enqueue_many: bool) -> tuple:
    tensor_list_list = [_validate(tl) for tl in tensor_list_list]
    keep_input = _validate_keep_input(keep_input, enqueue_many)
    return (tensor_list_list, keep_input, _dtypes(tensor_list_list),
            _shapes(tensor_list_list, shapes, enqueue_many))


def _dequeue(queue: Any, batch_size: Any, allow_smaller_final_batch: bool, name: str) -> Any:
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _batch(tensors: Any, batch_size: Any, keep_input: Any, num_threads: int = 1,
           capacity: int = 32, enqueue_many: bool = False, shapes: Any = None,
           dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
           shared_name: str | None = None, name: str | None = None,
           join: bool = False) -> Any:
    tensor_list_list = _as_tensor_list_list(tensors) if join else [_as_tensor_list(tensors)]
    with ops_lib.name_scope(name, "batch_join" if join else "batch",
                            _scope_values(tensor_list_list, keep_input)) as name:
        tensor_list_list, keep_input, types, shapes = _validate_all(
            tensor_list_list, keep_input, shapes, enqueue_many)
        queue_class = PaddingFIFOQueue if dynamic_pad else FIFOQueue
        queue = queue_class(capacity=capacity, dtypes=types, shapes=shapes,
                            shared_name=shared_name)
        _enqueue(queue, tensor_list_list, join, num_threads, enqueue_many, keep_input)
        _fraction_full(f"fraction_of_{capacity}_full", queue.size(), capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors[0] if join else tensors, dequeued)


def _shuffle_batch(tensors: Any, batch_size: Any, capacity: int, min_after_dequeue: int,
                   keep_input: Any, num_threads: int = 1, seed: int | None = None,
                   enqueue_many: bool = False, shapes: Any = None,
                   allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                   name: str | None = None, join: bool = False) -> Any:
    tensor_list_list = _as_tensor_list_list(tensors) if join else [_as_tensor_list(tensors)]
    with ops_lib.name_scope(name, "shuffle_batch_join" if join else "shuffle_batch",
                            _scope_values(tensor_list_list, keep_input)) as name:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue "
                             f"{min_after_dequeue}.")
        tensor_list_list, keep_input, types, shapes = _validate_all(
            tensor_list_list, keep_input, shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                                   seed=seed, dtypes=types, shapes=shapes,
                                   shared_name=shared_name)
        _enqueue(queue, tensor_list_list, join, num_threads, enqueue_many, keep_input)
        _fraction_full(f"fraction_over_{min_after_dequeue}_of_"
                       f"{capacity - min_after_dequeue}_full", queue.size(),
                       capacity - min_after_dequeue, offset=min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors[0] if join else tensors, dequeued)


def batch(tensors: Any, batch_size: Any, num_threads: int = 1, capacity: int = 32,
          enqueue_many: bool = False, shapes: Any = None, dynamic_pad: bool = False,
          allow_smaller_final_batch: bool = False, shared_name: str | None = None,
          name: str | None = None) -> Any:
    """Batches ``tensors`` through a FIFO queue filled by ``num_threads`` threads."""
    return _batch(tensors, batch_size, True, num_threads, capacity, enqueue_many, shapes,
                  dynamic_pad, allow_smaller_final_batch, shared_name, name)


def maybe_batch(tensors: Any, keep_input: Any, batch_size: Any, num_threads: int = 1,
                capacity: int = 32, enqueue_many: bool = False, shapes: Any = None,
                dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
                shared_name: str | None = None, name: str | None = None) -> Any:
    """``batch`` enqueuing only when ``keep_input`` is true."""
    return _batch(tensors, batch_size, keep_input, num_threads, capacity, enqueue_many,
                  shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name)


def batch_join(tensors_list: Any, batch_size: Any, capacity: int = 32,
               enqueue_many: bool = False, shapes: Any = None, dynamic_pad: bool = False,
               allow_smaller_final_batch: bool = False, shared_name: str | None = None,
               name: str | None = None) -> Any:
    """Batches from a list of tensor lists, one enqueue thread per list."""
    return _batch(tensors_list, batch_size, True, 1, capacity, enqueue_many, shapes,
                  dynamic_pad, allow_smaller_final_batch, shared_name, name, join=True)


def maybe_batch_join(tensors_list: Any, keep_input: Any, batch_size: Any, capacity: int = 32,
                     enqueue_many: bool = False, shapes: Any = None,
                     dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
                     shared_name: str | None = None, name: str | None = None) -> Any:
    """``batch_join`` enqueuing only when ``keep_input`` is true."""
    return _batch(tensors_list, batch_size, keep_input, 1, capacity, enqueue_many, shapes,
                  dynamic_pad, allow_smaller_final_batch, shared_name, name, join=True)


def shuffle_batch(tensors: Any, batch_size: Any, capacity: int, min_after_dequeue: int,
                  num_threads: int = 1, seed: int | None = None, enqueue_many: bool = False,
                  shapes: Any = None, allow_smaller_final_batch: bool = False,
                  shared_name: str | None = None, name: str | None = None) -> Any:
    """Batches ``tensors`` in random order through a RandomShuffleQueue."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, True, num_threads,
                          seed, enqueue_many, shapes, allow_smaller_final_batch, shared_name,
                          name)


def maybe_shuffle_batch(tensors: Any, batch_size: Any, capacity: int, min_after_dequeue: int,
                        keep_input: Any, num_threads: int = 1, seed: int | None = None,
                        enqueue_many: bool = False, shapes: Any = None,
                        allow_smaller_final_batch: bool = False,
                        shared_name: str | None = None, name: str | None = None) -> Any:
    """``shuffle_batch`` enqueuing only when ``keep_input`` is true."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                          num_threads, seed, enqueue_many, shapes, allow_smaller_final_batch,
                          shared_name, name)


def shuffle_batch_join(tensors_list: Any, batch_size: Any, capacity: int,
                       min_after_dequeue: int, seed: int | None = None,
                       enqueue_many: bool = False, shapes: Any = None,
                       allow_smaller_final_batch: bool = False,
                       shared_name: str | None = None, name: str | None = None) -> Any:
    """Shuffled batches from a list of tensor lists, one enqueue thread per list."""
    return _shuffle_batch(tensors_list, batch_size, capacity, min_after_dequeue, True, 1,
                          seed, enqueue_many, shapes, allow_smaller_final_batch, shared_name,
                          name, join=True)


def maybe_shuffle_batch_join(tensors_list: Any, batch_size: Any, capacity: int,
                             min_after_dequeue: int, keep_input: Any, seed: int | None = None,
                             enqueue_many: bool = False, shapes: Any = None,
                             allow_smaller_final_batch: bool = False,
                             shared_name: str | None = None, name: str | None = None) -> Any:
    """``shuffle_batch_join`` enqueuing only when ``keep_input`` is true."""
    return _shuffle_batch(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, 1,
                          seed, enqueue_many, shapes, allow_smaller_final_batch, shared_name,
                          name, join=True)
