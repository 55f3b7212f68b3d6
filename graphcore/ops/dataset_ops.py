"""tf.data's ops (TF's gen_dataset_ops): dataset sources and transformations whose
``handle: variant`` output is a dataset object, and the iterator ops (IteratorV2,
OneShotIterator, MakeIterator, IteratorGetNext, string handles). Functions (``f``,
``predicate``, ``dataset_factory``) name FunctionDefs of the graph's library. Kernels:
:mod:`graphcore.kernels.dataset_kernels`; the Python API: :mod:`graphcore.data`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import tensor_shape as shape_lib

__all__: list[str] = []

_STRUCTURE = ("output_types: list(type) >= 1", "output_shapes: list(shape) >= 1")
_META = "metadata: string = ''"


def _outputs_from_attr(op: Any) -> list:
    shapes = op.get_attr("output_shapes")
    return [shape_lib.as_shape(s) for s in shapes]


def _dataset(op_type: str, inputs: tuple = (), attrs: tuple = _STRUCTURE + (_META,),
             stateful: bool = False) -> None:
    builder = op_registry.register_op(op_type)
    for spec in attrs:
        builder = builder.attr(spec)
    for spec in inputs:
        builder = builder.input(spec)
    builder = builder.output("handle: variant")
    if stateful:
        builder = builder.stateful()
    builder.shape_fn(common_shapes.scalar_shape)


_FUNC_ARGS = ("input_dataset: variant", "other_arguments: Targuments")
_FUNC_ATTRS = ("Targuments: list(type) >= 0",) + _STRUCTURE

_dataset("TensorSliceDataset", ("components: Toutput_types",),
         ("Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1",
          "is_files: bool = false", _META, "replicate_on_split: bool = false"), stateful=True)
_dataset("TensorDataset", ("components: Toutput_types",),
         ("Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1", _META),
         stateful=True)
_dataset("RangeDataset", ("start: int64", "stop: int64", "step: int64"),
         _STRUCTURE + (_META, "replicate_on_split: bool = false"), stateful=True)
_dataset("RandomDataset", ("seed: int64", "seed2: int64"), _STRUCTURE + (_META,),
         stateful=True)
_dataset("MapDataset", _FUNC_ARGS,
         ("f: func",) + _FUNC_ATTRS + ("use_inter_op_parallelism: bool = true",
                                       "preserve_cardinality: bool = false",
                                       "force_synchronous: bool = false", _META))
_dataset("ParallelMapDatasetV2", _FUNC_ARGS + ("num_parallel_calls: int64",),
         ("f: func",) + _FUNC_ATTRS + ("use_inter_op_parallelism: bool = true",
                                       "deterministic: string = 'default'",
                                       "preserve_cardinality: bool = false",
                                       "use_unbounded_threadpool: bool = false", _META))
_dataset("FilterDataset", _FUNC_ARGS, ("predicate: func",) + _FUNC_ATTRS + (_META,))
_dataset("FlatMapDataset", _FUNC_ARGS, ("f: func",) + _FUNC_ATTRS + (_META,))
_dataset("InterleaveDataset", _FUNC_ARGS + ("cycle_length: int64", "block_length: int64"),
         ("f: func",) + _FUNC_ATTRS + (_META,))
_dataset("BatchDatasetV2", ("input_dataset: variant", "batch_size: int64",
                            "drop_remainder: bool"),
         ("parallel_copy: bool = false",) + _STRUCTURE + (_META,))
_dataset("PaddedBatchDatasetV2", ("input_dataset: variant", "batch_size: int64",
                                  "padded_shapes: N * int64",
                                  "padding_values: Toutput_types", "drop_remainder: bool"),
         ("parallel_copy: bool = false", "Toutput_types: list(type) >= 1",
          "output_shapes: list(shape) >= 1", "N: int >= 1", _META))
_dataset("ShuffleDataset", ("input_dataset: variant", "buffer_size: int64", "seed: int64",
                            "seed2: int64"),
         ("reshuffle_each_iteration: bool = true",) + _STRUCTURE + (_META,))
for _op in ("RepeatDataset", "TakeDataset", "SkipDataset"):
    _dataset(_op, ("input_dataset: variant", "count: int64"))
_dataset("GroupByWindowDataset",
         ("input_dataset: variant", "key_func_other_arguments: Tkey_func_other_arguments",
          "reduce_func_other_arguments: Treduce_func_other_arguments",
          "window_size_func_other_arguments: Twindow_size_func_other_arguments"),
         ("key_func: func", "reduce_func: func", "window_size_func: func",
          "Tkey_func_other_arguments: list(type) >= 0",
          "Treduce_func_other_arguments: list(type) >= 0",
          "Twindow_size_func_other_arguments: list(type) >= 0") + _STRUCTURE + (_META,))
_dataset("ShardDataset", ("input_dataset: variant", "num_shards: int64", "index: int64"),
         ("require_non_empty: bool = false",) + _STRUCTURE + (_META,))
_dataset("PrefetchDataset", ("input_dataset: variant", "buffer_size: int64"),
         _STRUCTURE + ("slack_period: int = 0", "legacy_autotune: bool = true",
                       "buffer_size_min: int = 0", _META))
_dataset("CacheDataset", ("input_dataset: variant", "filename: string"))
_dataset("ConcatenateDataset", ("input_dataset: variant", "another_dataset: variant"))
_dataset("ZipDataset", ("input_datasets: N * variant",), _STRUCTURE + ("N: int >= 1", _META))
_dataset("UnbatchDataset", ("input_dataset: variant",))
_dataset("TFRecordDataset", ("filenames: string", "compression_type: string",
                             "buffer_size: int64"), (_META,), stateful=True)
_dataset("TextLineDataset", ("filenames: string", "compression_type: string",
                             "buffer_size: int64"), (_META,), stateful=True)
_dataset("FixedLengthRecordDatasetV2", ("filenames: string", "header_bytes: int64",
                                        "record_bytes: int64", "footer_bytes: int64",
                                        "buffer_size: int64", "compression_type: string"),
         (_META,), stateful=True)

_dataset("GeneratorDataset", ("init_func_other_args: Tinit_func_args",
                              "next_func_other_args: Tnext_func_args",
                              "finalize_func_other_args: Tfinalize_func_args"),
         ("init_func: func", "next_func: func", "finalize_func: func",
          "Tinit_func_args: list(type) >= 0", "Tnext_func_args: list(type) >= 0",
          "Tfinalize_func_args: list(type) >= 0") + _STRUCTURE + (_META,), stateful=True)

op_registry.register_op("IteratorV2").output("handle: resource") \
    .attr("shared_name: string").attr("container: string").attr(_STRUCTURE[0]) \
    .attr(_STRUCTURE[1]).stateful().shape_fn(common_shapes.scalar_shape)

op_registry.register_op("OneShotIterator").output("handle: resource") \
    .attr("dataset_factory: func").attr(_STRUCTURE[0]).attr(_STRUCTURE[1]) \
    .attr("container: string = ''").attr("shared_name: string = ''").stateful() \
    .shape_fn(common_shapes.scalar_shape)

op_registry.register_op("MakeIterator").input("dataset: variant") \
    .input("iterator: resource").stateful().shape_fn(common_shapes.no_outputs)

op_registry.register_op("IteratorGetNext").input("iterator: resource") \
    .output("components: output_types").attr(_STRUCTURE[0]).attr(_STRUCTURE[1]) \
    .stateful().shape_fn(_outputs_from_attr)

op_registry.register_op("IteratorToStringHandle").input("resource_handle: resource") \
    .output("string_handle: string").stateful().shape_fn(common_shapes.scalar_shape)

op_registry.register_op("IteratorFromStringHandleV2").input("string_handle: string") \
    .output("resource_handle: resource").attr("output_types: list(type) >= 0 = []") \
    .attr("output_shapes: list(shape) >= 0 = []").stateful() \
    .shape_fn(common_shapes.scalar_shape)
