"""``tf.data.Dataset`` in graph mode (TF's DatasetV1): each dataset wraps the ``variant``
tensor of a dataset op and its element structure (dtypes and shapes, nested in tuples
and dicts); transformations add ops, their functions traced into the graph's library.
Iterators over a dataset are :mod:`graphcore.data.iterator_ops`."""

from __future__ import annotations

import glob
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from graphcore.data import iterator_ops
from graphcore.data import options as options_lib
from graphcore.data.structure import HasStructure, TensorSpec, flatten, map_structure, pack
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors, tensor_util
from graphcore.framework import function as function_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.indexed_slices import constant_value_as_shape
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import math_ops, random_ops, script_ops

__all__ = ["Dataset", "TensorSpec"]


def _normalize(element: Any) -> Any:
    """``element`` with every leaf a Tensor (TF's normalize_element)."""
    with ops_lib.name_scope("normalize_element"):
        leaves = flatten(element)
        tensors = [convert_to_tensor(v, name=f"component_{i}") for i, v in enumerate(leaves)]
    return pack(element, tensors)


def _spec_of(t: ops_lib.Tensor) -> TensorSpec:
    return TensorSpec(t.shape, t.dtype.base_dtype)


def _flat_attrs(structure: Any, types_attr: str = "output_types") -> dict:
    specs = flatten(structure)
    return {types_attr: [s.dtype for s in specs], "output_shapes": [s.shape for s in specs]}


def _int64(value: Any, name: str) -> ops_lib.Tensor:
    return convert_to_tensor(value, dtype=dtypes_lib.int64, name=name)


class Dataset(HasStructure):
    """A sequence of elements produced by a chain of dataset ops (tf.compat.v1's
    ``tf.data.Dataset``)."""

    def __init__(self, variant_tensor: ops_lib.Tensor, structure: Any,
                 options: options_lib.Options | None = None):
        self._variant_tensor = variant_tensor
        self._structure = structure
        # The options set on this dataset or any it was built from (TF merges the inputs').
        self._options_value = options if options is not None else options_lib.Options()

    # -- structure --------------------------------------------------------------------------
    def _op(self, op_type: str, structure: Any = None, **inputs: Any) -> Dataset:
        structure = self._structure if structure is None else structure
        op = apply_op(op_type, input_dataset=self._variant_tensor, **inputs,
                      **_flat_attrs(structure))
        return Dataset(op.outputs[0], structure, self._options_value)

    def __iter__(self) -> Any:
        raise RuntimeError("`tf.data.Dataset` only supports Python-style iteration in eager "
                           "mode or within tf.function.")

    # -- sources ----------------------------------------------------------------------------
    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset of one element, ``tensors``."""
        del name
        element = _normalize(tensors)
        flat = flatten(element)
        structure = map_structure(_spec_of, element)
        op = apply_op("TensorDataset", components=flat, **_flat_attrs(structure,
                                                                       "Toutput_types"))
        return Dataset(op.outputs[0], structure)

    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset of the slices of ``tensors`` along their first dimension."""
        del name
        element = _normalize(tensors)
        flat = flatten(element)
        batch = shape_lib.Dimension(None)
        for t in flat:
            if t.shape.ndims == 0:
                raise ValueError(f"Unbatching a tensor is only supported for rank >= 1, "
                                 f"but got a scalar {t.name}")
            batch = batch.merge_with(t.shape.with_rank_at_least(1)[0])
        structure = map_structure(lambda t: TensorSpec(t.shape[1:], t.dtype.base_dtype),
                                  element)
        op = apply_op("TensorSliceDataset", components=flat,
                      **_flat_attrs(structure, "Toutput_types"))
        return Dataset(op.outputs[0], structure)

    @staticmethod
    def range(*args: Any, output_type: Any = dtypes_lib.int64, name: str | None = None
              ) -> Dataset:
        """``range(stop)``, ``range(start, stop[, step])`` as a dataset of scalars."""
        del name
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            (start, stop), step = args, 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError(f"Invalid arguments to RangeDataset: {args}")
        structure = TensorSpec([], output_type)
        op = apply_op("RangeDataset", start=_int64(start, "start"), stop=_int64(stop, "stop"),
                      step=_int64(step, "step"), **_flat_attrs(structure))
        return Dataset(op.outputs[0], structure)

    @staticmethod
    def random(seed: int | None = None, rerandomize_each_iteration: bool | None = None,
               name: str | None = None) -> Dataset:
        """Endless pseudorandom int64 scalars in [0, 2**32) (TF's RandomDataset: the same
        sequence on every pass for the same seeds)."""
        del name
        if rerandomize_each_iteration:
            raise NotImplementedError("Dataset.random(rerandomize_each_iteration=True) "
                                      "(RandomDatasetV2 with a seed generator) is not "
                                      "implemented in graphcore")
        seed1, seed2 = _seed_tensors(seed)
        structure = TensorSpec([], dtypes_lib.int64)
        op = apply_op("RandomDataset", seed=seed1, seed2=seed2, **_flat_attrs(structure))
        return Dataset(op.outputs[0], structure)

    @staticmethod
    def zip(datasets: Any, name: str | None = None) -> Dataset:
        """Elements of ``datasets`` (a nested structure of datasets) side by side."""
        del name
        flat = flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                raise TypeError(f"Invalid `datasets`. `datasets` is expected to be a "
                                f"(nested) structure of `tf.data.Dataset` objects. Python "
                                f"`list` is not supported and you should use `tuple` "
                                f"instead. Got {type(d)}.")
        structure = pack(datasets, [d._structure for d in flat])
        op = apply_op("ZipDataset", input_datasets=[d._variant_tensor for d in flat],
                      **_flat_attrs(structure))
        return Dataset(op.outputs[0], structure,
                       options_lib.merge_options(*[d._options_value for d in flat]))

    @staticmethod
    def list_files(file_pattern: Any, shuffle: bool | None = None, seed: int | None = None,
                   name: str | None = None) -> Dataset:
        """The files matching ``file_pattern`` (globbed now), shuffled unless
        ``shuffle=False``."""
        del name
        patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else \
            list(file_pattern)
        files = sorted({f for p in patterns for f in glob.glob(
            p.decode() if isinstance(p, bytes) else p)})
        if not files:
            raise errors.InvalidArgumentError(
                None, None, f"Expected 'file_pattern' to be a pattern matching files, got "
                            f"{patterns}")
        dataset = Dataset.from_tensor_slices(np.array(files, dtype=object))
        if shuffle is None or shuffle:
            dataset = dataset.shuffle(len(files), seed=seed)
        return dataset

    @staticmethod
    def from_generator(generator: Callable[[], Any], output_types: Any = None,
                       output_shapes: Any = None, args: Any = None,
                       output_signature: Any = None, name: str | None = None) -> Dataset:
        """The elements a fresh ``generator()`` yields, on each pass (TF's construction: a
        GeneratorDataset inside a flat_map, its functions calling Python through
        ``numpy_function``)."""
        del name
        if args is not None:
            raise NotImplementedError("from_generator(args=...) is not supported by "
                                      "graphcore; bind the arguments in the generator")
        if output_signature is not None:
            structure = output_signature
        else:
            if output_types is None:
                raise TypeError("The `output_types` argument can not be None.")
            if output_shapes is None:
                output_shapes = map_structure(lambda _: shape_lib.unknown_shape(),
                                              output_types)
            types = flatten(output_types)
            shapes = flatten(output_shapes) if isinstance(output_shapes, (tuple, dict)) \
                else [output_shapes]
            structure = pack(output_types, [TensorSpec(sh, t) for t, sh in zip(types, shapes)])
        specs = flatten(structure)
        iterators: dict[int, Any] = {}
        ids = itertools.count()

        def start(_: Any) -> np.int64:
            key = next(ids)
            iterators[key] = iter(generator())
            return np.int64(key)

        def step(key: Any) -> list:
            values = flatten(_tuple_lists(next(iterators[int(key)]), structure))
            out = []
            for value, spec in zip(values, specs):
                array = np.asarray(value, dtype=object if spec.dtype == dtypes_lib.string
                                   else spec.dtype.as_numpy_dtype)
                if not spec.shape.is_compatible_with(shape_lib.TensorShape(array.shape)):
                    raise TypeError(f"`generator` yielded an element of shape "
                                     f"{array.shape} where an element of shape "
                                     f"{tuple(spec.shape.as_list())} was expected.")
                out.append(array)
            return out

        def finish(key: Any) -> np.int64:
            iterators.pop(int(key), None)
            return np.int64(0)

        def generator_dataset(dummy: ops_lib.Tensor) -> Dataset:
            int64 = [(dtypes_lib.int64, shape_lib.TensorShape([]))]
            init = function_lib.trace(
                lambda d: script_ops.numpy_function(start, [d], dtypes_lib.int64),
                [(dummy.dtype, dummy.shape)], "Dataset_from_generator_get_iterator_id_fn")
            nxt = function_lib.trace(
                lambda k: _set_shapes(script_ops.numpy_function(
                    step, [k], [s.dtype for s in specs]), specs),
                int64, "Dataset_from_generator_generator_next_fn")
            fin = function_lib.trace(
                lambda k: script_ops.numpy_function(finish, [k], dtypes_lib.int64),
                int64, "Dataset_from_generator_finalize_fn")
            op = apply_op("GeneratorDataset", init_func_other_args=[dummy],
                          next_func_other_args=[], finalize_func_other_args=[],
                          init_func=init[0], next_func=nxt[0], finalize_func=fin[0],
                          **_flat_attrs(structure))
            return Dataset(op.outputs[0], structure)

        return Dataset.from_tensors(0).flat_map(generator_dataset)

    # -- transformations with functions ---------------------------------------------------
    def _trace(self, fn: Callable[..., Any], what: str,
               fn_name: str | None = None) -> tuple[str, list, Any, list]:
        specs = flatten(self._structure)

        def call(*args: Any) -> Any:
            element = pack(self._structure, list(args))
            if isinstance(element, tuple) and not hasattr(element, "_fields"):
                return fn(*element)
            return fn(element)

        name = fn_name or getattr(fn, "__name__", "fn")
        return function_lib.trace(call, [(s.dtype, s.shape) for s in specs],
                                  f"Dataset_{what}_{name}")

    def map(self, map_func: Callable[..., Any], num_parallel_calls: Any = None,
            deterministic: Any = None, name: str | None = None) -> Dataset:
        """Applies ``map_func`` to every element."""
        del name
        fname, outputs, result, captured = self._trace(map_func, "map")
        if isinstance(result, list):
            result = tuple(result)  # tf.data turns a returned list into a tuple
        structure = pack(result, [_spec_of(t) for t in outputs]) \
            if isinstance(result, (tuple, dict)) else _spec_of(outputs[0])
        attrs = dict(f=fname, other_arguments=captured, **_flat_attrs(structure))
        if num_parallel_calls is None:
            op = apply_op("MapDataset", input_dataset=self._variant_tensor, **attrs)
        else:
            op = apply_op("ParallelMapDatasetV2", input_dataset=self._variant_tensor,
                          num_parallel_calls=_int64(num_parallel_calls, "num_parallel_calls"),
                          deterministic="default" if deterministic is None else
                          ("true" if deterministic else "false"), **attrs)
        return Dataset(op.outputs[0], structure, self._options_value)

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        """The elements for which ``predicate`` is true."""
        del name
        fname, outputs, _, captured = self._trace(predicate, "filter")
        if len(outputs) != 1 or outputs[0].dtype != dtypes_lib.bool or \
                outputs[0].shape.ndims not in (0, None):
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` "
                             f"scalar tensor, but its return type is "
                             f"{[_spec_of(t) for t in outputs]}.")
        return self._op("FilterDataset", predicate=fname, other_arguments=captured)

    def _dataset_fn(self, fn: Callable[..., Any], what: str) -> tuple[str, Any, list]:
        """Traces ``fn`` (element -> Dataset); returns its function's name, the
        structure of the datasets it makes and the outer tensors it captured."""
        returned: list[Dataset] = []

        def variant(*args: Any) -> ops_lib.Tensor:
            dataset = fn(*args)
            if not isinstance(dataset, Dataset):
                raise TypeError(f"The `{what}` function must return a `tf.data.Dataset`, "
                                f"got {type(dataset).__name__}.")
            returned.append(dataset)
            return dataset._variant_tensor

        fname, _, _, captured = self._trace(variant, what, getattr(fn, "__name__", "fn"))
        return fname, returned[0]._structure, captured

    def flat_map(self, map_func: Callable[..., Any], name: str | None = None) -> Dataset:
        """Maps each element to a dataset and flattens the results."""
        del name
        fname, structure, captured = self._dataset_fn(map_func, "flat_map")
        return self._op("FlatMapDataset", structure, f=fname, other_arguments=captured)

    def interleave(self, map_func: Callable[..., Any], cycle_length: Any = None,
                   block_length: Any = None, num_parallel_calls: Any = None,
                   deterministic: Any = None, name: str | None = None) -> Dataset:
        """Maps each element to a dataset and interleaves ``cycle_length`` of them,
        ``block_length`` elements at a time."""
        del num_parallel_calls, deterministic, name
        fname, structure, captured = self._dataset_fn(map_func, "interleave")
        return self._op("InterleaveDataset", structure, f=fname, other_arguments=captured,
                        cycle_length=_int64(-1 if cycle_length is None else cycle_length,
                                            "cycle_length"),
                        block_length=_int64(1 if block_length is None else block_length,
                                            "block_length"))

    def group_by_window(self, key_func: Callable[..., Any], reduce_func: Callable[..., Any],
                        window_size: Any = None, window_size_func: Any = None,
                        name: str | None = None) -> Dataset:
        """Groups elements by ``key_func`` (an int64 scalar); each group of
        ``window_size`` elements (or ``window_size_func(key)``), and what is left of each
        group at the end in key order, becomes ``reduce_func(key, window_dataset)``."""
        del name
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` "
                             "argument must be specified.")
        if window_size is not None:
            size = window_size

            def window_size_func(unused_key: Any) -> ops_lib.Tensor:
                return convert_to_tensor(size, dtype=dtypes_lib.int64)

        scalar = (dtypes_lib.int64, shape_lib.TensorShape([]))
        kname, kout, _, kcap = self._trace(key_func, "group_by_window_key_func")
        if len(kout) != 1 or kout[0].dtype != dtypes_lib.int64 or \
                kout[0].shape.ndims not in (0, None):
            raise ValueError("Invalid `key_func`. `key_func` must return a single tf.int64 "
                             "scalar tensor.")
        returned: list[Dataset] = []

        def reduce(key: ops_lib.Tensor, window: ops_lib.Tensor) -> ops_lib.Tensor:
            dataset = reduce_func(key, Dataset(window, self._structure))
            if not isinstance(dataset, Dataset):
                raise TypeError("`reduce_func` must return a `Dataset` object.")
            returned.append(dataset)
            return dataset._variant_tensor

        rname, _, _, rcap = function_lib.trace(
            reduce, [scalar, (dtypes_lib.variant, shape_lib.TensorShape([]))],
            "Dataset_group_by_window_reduce_func")
        wname, wout, _, wcap = function_lib.trace(
            window_size_func, [scalar], "Dataset_group_by_window_window_size_func")
        if len(wout) != 1 or wout[0].dtype != dtypes_lib.int64 or \
                wout[0].shape.ndims not in (0, None):
            raise ValueError("Invalid `window_size_func`. `window_size_func` must return a "
                             "single tf.int64 scalar tensor.")
        return self._op("GroupByWindowDataset", returned[0]._structure,
                        key_func_other_arguments=kcap, reduce_func_other_arguments=rcap,
                        window_size_func_other_arguments=wcap, key_func=kname,
                        reduce_func=rname, window_size_func=wname)

    def bucket_by_sequence_length(self, element_length_func: Callable[..., Any],
                                  bucket_boundaries: list, bucket_batch_sizes: list,
                                  padded_shapes: Any = None, padding_values: Any = None,
                                  pad_to_bucket_boundary: bool = False,
                                  no_padding: bool = False, drop_remainder: bool = False,
                                  name: str | None = None) -> Dataset:
        """Elements batched with others of their length bucket (``bucket_boundaries``),
        ``bucket_batch_sizes[bucket]`` at a time, padded per batch: TF's group_by_window
        over the bucket id."""
        del name
        from graphcore.ops import array_ops

        if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
            raise ValueError(
                f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
                f"`len(bucket_boundaries)={len(bucket_boundaries)}`.")
        batch_sizes = convert_to_tensor(bucket_batch_sizes, dtype=dtypes_lib.int64)

        def element_to_bucket_id(*args: Any) -> ops_lib.Tensor:
            seq_length = element_length_func(*args)
            boundaries = list(bucket_boundaries)
            buckets_min = [np.iinfo(np.int32).min] + boundaries
            buckets_max = boundaries + [np.iinfo(np.int32).max]
            conditions_c = math_ops.logical_and(math_ops.less_equal(buckets_min, seq_length),
                                                math_ops.less(seq_length, buckets_max))
            return math_ops.reduce_min(array_ops.where(conditions_c))

        def window_size_fn(bucket_id: ops_lib.Tensor) -> ops_lib.Tensor:
            return batch_sizes[bucket_id]

        def make_padded_shapes(shapes: Any, none_filler: Any = None) -> Any:
            padded = [[none_filler if d is None else d
                       for d in shape_lib.TensorShape(shape).as_list()]
                      for shape in flatten(shapes)]
            return pack(shapes, padded)

        def batching_fn(bucket_id: ops_lib.Tensor, grouped: Dataset) -> Dataset:
            batch_size = window_size_fn(bucket_id)
            if no_padding:
                return grouped.batch(batch_size, drop_remainder=drop_remainder)
            none_filler = None
            if pad_to_bucket_boundary:
                # TF's check_ops.assert_less, its Assert unguarded: a function body here has
                # no tf.cond (the failure and its message are the same).
                last = convert_to_tensor(len(bucket_batch_sizes) - 1, dtype=dtypes_lib.int64)
                check = apply_op("Assert", name="assert_less",
                                 condition=math_ops.reduce_all(math_ops.less(bucket_id, last)),
                                 data=["When pad_to_bucket_boundary=True, elements must have "
                                       "length < max(bucket_boundaries).",
                                       "Condition x < y did not hold element-wise:",
                                       f"x ({bucket_id.name}) = ", bucket_id,
                                       f"y ({last.name}) = ", last], summarize=3)
                with ops_lib.control_dependencies([check]):
                    boundaries = convert_to_tensor(bucket_boundaries, dtype=dtypes_lib.int64)
                    none_filler = boundaries[bucket_id] - 1
            shapes = make_padded_shapes(
                padded_shapes or map_structure(lambda spec: spec.shape, grouped._structure),
                none_filler=none_filler)
            return grouped.padded_batch(batch_size, shapes, padding_values,
                                        drop_remainder=drop_remainder)

        return self.group_by_window(element_to_bucket_id, batching_fn,
                                    window_size_func=window_size_fn)

    # -- batching ---------------------------------------------------------------------------
    def batch(self, batch_size: Any, drop_remainder: bool = False,
              num_parallel_calls: Any = None, deterministic: Any = None,
              name: str | None = None) -> Dataset:
        """Consecutive elements stacked into batches of ``batch_size``."""
        del num_parallel_calls, deterministic, name
        size = _int64(batch_size, "batch_size")
        drop = convert_to_tensor(drop_remainder, dtype=dtypes_lib.bool, name="drop_remainder")
        structure = self._batched_structure(size, drop)
        return self._op("BatchDatasetV2", structure, batch_size=size, drop_remainder=drop)

    def _batched_structure(self, size: ops_lib.Tensor, drop: ops_lib.Tensor,
                           shapes: Any = None) -> Any:
        static_drop = tensor_util.constant_value(drop)
        static_size = tensor_util.constant_value(size)
        dim = int(static_size) if static_drop is not None and bool(static_drop) and \
            static_size is not None else None
        specs = flatten(self._structure)
        shapes = shapes or [s.shape for s in specs]
        return pack(self._structure, [TensorSpec(shape_lib.TensorShape([dim]).concatenate(sh),
                                                 s.dtype) for s, sh in zip(specs, shapes)])

    def padded_batch(self, batch_size: Any, padded_shapes: Any = None,
                     padding_values: Any = None, drop_remainder: bool = False,
                     name: str | None = None) -> Dataset:
        """Batches whose components are padded to ``padded_shapes`` (their batch's
        largest size where a dimension is None / -1)."""
        del name
        specs = flatten(self._structure)
        size = _int64(batch_size, "batch_size")
        if padded_shapes is None:
            given = [s.shape for s in specs]
        else:
            given = flatten(padded_shapes) if isinstance(padded_shapes, (tuple, dict)) \
                else [padded_shapes]
        shapes, shape_tensors = [], []
        for padded in given:
            try:
                shape = shape_lib.as_shape(padded)
            except (TypeError, ValueError):
                # A shape holding tensors (a bucket's boundary): TF's _padded_shape_to_tensor
                tensor = convert_to_tensor(padded, preferred_dtype=dtypes_lib.int64)
                if tensor.dtype != dtypes_lib.int64:
                    tensor = math_ops.cast(tensor, dtypes_lib.int64)
                shapes.append(constant_value_as_shape(tensor))
                shape_tensors.append(tensor)
                continue
            shapes.append(shape)
            shape_tensors.append(convert_to_tensor([-1 if d is None else d
                                                    for d in shape.as_list()],
                                                   dtype=dtypes_lib.int64))
        values = flatten(padding_values) if isinstance(padding_values, (tuple, dict)) else \
            [padding_values] * len(specs)
        pads = [convert_to_tensor(b"" if s.dtype == dtypes_lib.string else 0, dtype=s.dtype,
                                  name="padding_value") if v is None else
                convert_to_tensor(v, name="padding_value") for v, s in zip(values, specs)]
        for pad, spec in zip(pads, specs):
            if pad.dtype.base_dtype != spec.dtype:
                raise TypeError(f"Invalid `padding_values`. `padding_values` values type "
                                f"{pad.dtype!r} does not match type {spec.dtype!r} of the "
                                "corresponding input component.")
        drop = convert_to_tensor(drop_remainder, dtype=dtypes_lib.bool, name="drop_remainder")
        structure = self._batched_structure(size, drop, shapes)
        op = apply_op("PaddedBatchDatasetV2", input_dataset=self._variant_tensor,
                      batch_size=size, padded_shapes=shape_tensors, padding_values=pads,
                      drop_remainder=drop, output_shapes=[s.shape for s in
                                                          flatten(structure)])
        return Dataset(op.outputs[0], structure, self._options_value)

    def unbatch(self, name: str | None = None) -> Dataset:
        """The rows of each element as elements of their own."""
        del name
        structure = map_structure(lambda s: TensorSpec(s.shape[1:], s.dtype), self._structure)
        return self._op("UnbatchDataset", structure)

    # -- order and count --------------------------------------------------------------------
    def shuffle(self, buffer_size: Any, seed: int | None = None,
                reshuffle_each_iteration: bool | None = None, name: str | None = None
                ) -> Dataset:
        """Elements in a random order drawn from a buffer of ``buffer_size``."""
        del name
        size = _int64(buffer_size, "buffer_size")
        seed1, seed2 = _seed_tensors(seed)
        return self._op("ShuffleDataset", buffer_size=size, seed=seed1, seed2=seed2,
                        reshuffle_each_iteration=True if reshuffle_each_iteration is None
                        else bool(reshuffle_each_iteration))

    def repeat(self, count: Any = None, name: str | None = None) -> Dataset:
        """The dataset ``count`` times (forever when None or -1)."""
        del name
        return self._op("RepeatDataset", count=_int64(-1 if count is None else count,
                                                      "count"))

    def take(self, count: Any, name: str | None = None) -> Dataset:
        del name
        return self._op("TakeDataset", count=_int64(count, "count"))

    def skip(self, count: Any, name: str | None = None) -> Dataset:
        del name
        return self._op("SkipDataset", count=_int64(count, "count"))

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> Dataset:
        """Every ``num_shards``-th element, from the ``index``-th (ShardDataset)."""
        del name
        return self._op("ShardDataset", num_shards=_int64(num_shards, "num_shards"),
                        index=_int64(index, "index"))

    def prefetch(self, buffer_size: Any, name: str | None = None) -> Dataset:
        del name
        return self._op("PrefetchDataset", buffer_size=_int64(buffer_size, "buffer_size"))

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        """The elements, kept in memory after the first complete pass."""
        del name
        return self._op("CacheDataset", filename=convert_to_tensor(
            filename, dtype=dtypes_lib.string, name="filename"))

    def concatenate(self, dataset: Dataset, name: str | None = None) -> Dataset:
        """This dataset's elements, then ``dataset``'s."""
        del name
        if self.output_types != dataset.output_types:
            raise TypeError(f"Incompatible dataset elements:\n  {self.element_spec} vs. "
                            f"  {dataset.element_spec}")
        mine, theirs = flatten(self._structure), flatten(dataset._structure)
        structure = pack(self._structure, [TensorSpec(_most_specific(a.shape, b.shape), a.dtype)
                                           for a, b in zip(mine, theirs)])
        out = self._op("ConcatenateDataset", structure, another_dataset=dataset._variant_tensor)
        out._options_value = options_lib.merge_options(self._options_value,
                                                       dataset._options_value)
        return out

    def enumerate(self, start: int = 0, name: str | None = None) -> Dataset:
        """(index, element) pairs, indices from ``start``."""
        del name
        return Dataset.zip((Dataset.range(start, np.iinfo(np.int64).max), self))

    def apply(self, transformation_func: Callable[[Dataset], Dataset]) -> Dataset:
        return transformation_func(self)

    # -- options ------------------------------------------------------------------------
    def options(self) -> options_lib.Options:
        """The options of this dataset and those it was built from (read-only)."""
        options = options_lib.merge_options(self._options_value)
        options._set_mutable(False)
        return options

    def with_options(self, options: options_lib.Options, name: str | None = None) -> Dataset:
        """This dataset with ``options`` merged over its options (set values win)."""
        del name
        if not isinstance(options, options_lib.Options):
            raise TypeError(f"Could not merge incompatible options of type {type(options)} "
                            f"and {options_lib.Options}.")
        return Dataset(self._variant_tensor, self._structure,
                       options_lib.merge_options(self._options_value, options))

    # -- iterators (TF1's Dataset methods) ------------------------------------------------
    def make_one_shot_iterator(self) -> Any:
        return iterator_ops.make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name: str | None = None) -> Any:
        return iterator_ops.make_initializable_iterator(self, shared_name)



def _seed_tensors(seed: int | None) -> tuple[ops_lib.Tensor, ops_lib.Tensor]:
    """tf.data's seeds as tensors: (0, 0) without graph or op seed; else a ``seed2`` that
    becomes 2**31 - 1 when both are 0 (TF's data random_seed.get_seed)."""
    seed1, seed2 = random_ops.get_seed(seed)
    seed_t = _int64(0 if seed1 is None else seed1, "seed")
    if seed2 is None:
        return seed_t, _int64(0, "seed2")
    with ops_lib.name_scope("seed2") as scope:
        seed2_t = convert_to_tensor(seed2, dtype=dtypes_lib.int64)
        both_zero = math_ops.logical_and(math_ops.equal(seed_t, 0),
                                         math_ops.equal(seed2_t, 0))
        return seed_t, math_ops.where_v2(both_zero, convert_to_tensor(
            2**31 - 1, dtype=dtypes_lib.int64), seed2_t, name=scope)


def _tuple_lists(value: Any, structure: Any) -> Any:
    """A generator's value with the lists standing for tuples of ``structure`` made
    tuples (generators often yield lists)."""
    if isinstance(structure, tuple) and isinstance(value, list):
        return tuple(_tuple_lists(v, s) for v, s in zip(value, structure))
    return value


def _set_shapes(tensors: Any, specs: list) -> list:
    tensors = tensors if isinstance(tensors, list) else [tensors]
    for t, spec in zip(tensors, specs):
        t.set_shape(spec.shape)
    return tensors


def _most_specific(a: shape_lib.TensorShape, b: shape_lib.TensorShape) -> shape_lib.TensorShape:
    """The shape both ``a`` and ``b`` have: equal dims kept, others unknown."""
    if a.dims is None or b.dims is None or len(a.dims) != len(b.dims):
        return shape_lib.unknown_shape()
    return shape_lib.TensorShape([x if x == y else None for x, y in zip(a.as_list(),
                                                                          b.as_list())])


class DatasetSpec:
    """The type of a dataset (``tf.data.DatasetSpec``): its element structure and, for a
    batch of datasets, the batch's shape."""

    def __init__(self, element_spec: Any, dataset_shape: Any = ()):
        self._element_spec = element_spec
        self._dataset_shape = shape_lib.as_shape(dataset_shape)

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    @property
    def shape(self) -> shape_lib.TensorShape:
        return self._dataset_shape

    @property
    def value_type(self) -> type:
        return Dataset

    @staticmethod
    def from_value(value: Dataset) -> DatasetSpec:
        return DatasetSpec(value.element_spec)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        other = DatasetSpec.from_value(spec_or_value) if isinstance(spec_or_value, Dataset) \
            else spec_or_value
        if not isinstance(other, DatasetSpec):
            return False
        mine, theirs = flatten(self._element_spec), flatten(other._element_spec)
        if len(mine) != len(theirs):
            return False
        try:
            pack(other._element_spec, mine)
        except (TypeError, ValueError):
            return False
        return \
            self._dataset_shape.is_compatible_with(other._dataset_shape) and \
            all(a.dtype == b.dtype and a.shape.is_compatible_with(b.shape)
                for a, b in zip(mine, theirs))

    def _key(self) -> tuple:
        dims = self._dataset_shape.dims
        return (tuple(flatten(self._element_spec)),
                None if dims is None else tuple(self._dataset_shape.as_list()))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, DatasetSpec) and self._key() == other._key() and \
            pack(other._element_spec, flatten(self._element_spec)) == self._element_spec

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"
