"""``tf.data.Iterator`` in graph mode (TF1's): an iterator resource (IteratorV2,
OneShotIterator or IteratorFromStringHandleV2) that MakeIterator points at a dataset and
IteratorGetNext pulls elements from, raising OutOfRangeError at the end."""

from __future__ import annotations

from typing import Any

from graphcore.data.structure import HasStructure, TensorSpec, flatten, map_structure, pack
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import function as function_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import random_ops

__all__ = ["Iterator", "get_output_classes", "get_output_shapes", "get_output_types",
           "make_initializable_iterator", "make_one_shot_iterator"]


def _structure(output_types: Any, output_shapes: Any) -> Any:
    if output_shapes is None:
        output_shapes = map_structure(lambda _: shape_lib.unknown_shape(), output_types)
    types = flatten(output_types)
    shapes = flatten(output_shapes) if isinstance(output_shapes, (tuple, dict)) else \
        [output_shapes]
    if len(shapes) != len(types):
        raise ValueError("The two structures don't have the same nested structure: "
                         f"{output_types} and {output_shapes}")
    return pack(output_types, [TensorSpec(s, dtypes_lib.as_dtype(t))
                               for t, s in zip(types, shapes)])


def _flat_attrs(structure: Any) -> dict:
    specs = flatten(structure)
    return {"output_types": [s.dtype for s in specs],
            "output_shapes": [s.shape for s in specs]}


class Iterator(HasStructure):
    """An iterator over the elements of a dataset (TF1's ``tf.data.Iterator``)."""

    def __init__(self, iterator_resource: ops_lib.Tensor, initializer: Any,
                 output_types: Any, output_shapes: Any, output_classes: Any = None):
        del output_classes
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._structure = _structure(output_types, output_shapes)
        self._string_handle = apply_op("IteratorToStringHandle",
                                       resource_handle=iterator_resource).outputs[0]

    @staticmethod
    def from_structure(output_types: Any, output_shapes: Any = None,
                       shared_name: str | None = None, output_classes: Any = None
                       ) -> Iterator:
        """An iterator of this element structure, not bound to a dataset: each
        ``make_initializer(dataset)`` (re)starts it over a dataset."""
        structure = _structure(output_types, output_shapes)
        with ops_lib.device("/cpu:0"):
            resource = apply_op("IteratorV2", container="", shared_name=shared_name or "",
                                **_flat_attrs(structure)).outputs[0]
        return Iterator(resource, None, output_types, output_shapes, output_classes)

    @staticmethod
    def from_string_handle(string_handle: Any, output_types: Any, output_shapes: Any = None,
                           output_classes: Any = None) -> Iterator:
        """The iterator whose ``string_handle()`` value ``string_handle`` is fed with."""
        structure = _structure(output_types, output_shapes)
        with ops_lib.device("/cpu:0"):
            resource = apply_op("IteratorFromStringHandleV2", string_handle=string_handle,
                                **_flat_attrs(structure)).outputs[0]
        return Iterator(resource, None, output_types, output_shapes, output_classes)

    @property
    def initializer(self) -> ops_lib.Operation:
        if self._initializer is not None:
            return self._initializer
        raise ValueError("The iterator does not have an initializer. This means it was "
                         "likely created using `tf.data.Dataset.make_one_shot_iterator()`. "
                         "For an initializable iterator, use "
                         "`tf.data.Dataset.make_initializable_iterator()` instead.")

    def make_initializer(self, dataset: Any, name: str | None = None) -> ops_lib.Operation:
        """An op (re)starting this iterator over ``dataset``."""
        with ops_lib.name_scope(name, "make_initializer") as name:
            mine = [(s.dtype, s.shape.as_list() if s.shape.dims is not None else None)
                    for s in flatten(self._structure)]
            theirs = flatten(dataset.element_spec)
            if [m[0] for m in mine] != [s.dtype for s in theirs]:
                raise TypeError(f"Expected output types {self.output_types!r} but got "
                                f"dataset with output types {dataset.output_types!r}.")
            for (_, shape), spec in zip(mine, theirs):
                if not shape_lib.TensorShape(shape).is_compatible_with(spec.shape):
                    raise TypeError(f"Expected output shapes compatible with "
                                    f"{self.output_shapes!r} but got dataset with output "
                                    f"shapes {dataset.output_shapes!r}.")
            with ops_lib.colocate_with(self._iterator_resource.op):
                return apply_op("MakeIterator", name=name, dataset=dataset._variant_tensor,
                                iterator=self._iterator_resource)

    def get_next(self, name: str | None = None) -> Any:
        """The next element; running it past the end raises OutOfRangeError."""
        op = apply_op("IteratorGetNext", name=name, iterator=self._iterator_resource,
                      **_flat_attrs(self._structure))
        for t, spec in zip(op.outputs, flatten(self._structure)):
            t.set_shape(spec.shape)
        return pack(self._structure, list(op.outputs))

    def string_handle(self, name: str | None = None) -> ops_lib.Tensor:
        """A string naming this iterator, for ``from_string_handle``."""
        if name is None:
            return self._string_handle
        return apply_op("IteratorToStringHandle", name=name,
                        resource_handle=self._iterator_resource).outputs[0]


def make_one_shot_iterator(dataset: Any) -> Iterator:
    """An iterator that goes over ``dataset`` once, needing no initialization; the
    dataset is rebuilt inside by a function of copies of its ops (no placeholders)."""
    # TF draws an op seed here (for its dataset function's graph seed): the seedless
    # random ops made after it must get the seeds they get in TF.
    random_ops.get_seed(None)
    factory = function_lib.function_from_subgraph(dataset._variant_tensor, "_make_dataset")
    with ops_lib.colocate_with(dataset._variant_tensor.op):
        resource = apply_op("OneShotIterator", dataset_factory=factory,
                            **_flat_attrs(dataset.element_spec)).outputs[0]
        return Iterator(resource, None, dataset.output_types, dataset.output_shapes)


def make_initializable_iterator(dataset: Any, shared_name: str | None = None) -> Iterator:
    """An iterator over ``dataset`` that its ``initializer`` op (re)starts."""
    with ops_lib.colocate_with(dataset._variant_tensor.op):
        resource = apply_op("IteratorV2", container="", shared_name=shared_name or "",
                            **_flat_attrs(dataset.element_spec)).outputs[0]
        initializer = apply_op("MakeIterator", dataset=dataset._variant_tensor,
                               iterator=resource)
        return Iterator(resource, initializer, dataset.output_types, dataset.output_shapes)


def get_output_types(dataset_or_iterator: Any) -> Any:
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator: Any) -> Any:
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator: Any) -> Any:
    return dataset_or_iterator.output_classes
