"""Higher-order functions over the first dimension (TF1's functional_ops and map_fn):
``map_fn``, ``scan``, ``foldl``, ``foldr``, built as TF1 builds them — a ``while_loop``
over TensorArrays — so they run, differentiate and serialize as TF's; and ``hessians``."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, gradients_impl, tensor_array_ops, variable_scope
from graphcore.ops.while_loop import while_loop

__all__ = ["foldl", "foldr", "hessians", "map_fn", "scan"]


@contextlib.contextmanager
def _cached_variables() -> Iterator[None]:
    """As TF: ``get_variable`` inside the loop caches each variable on its device."""
    scope = variable_scope.get_variable_scope()
    was_none = scope.caching_device is None
    if was_none:
        scope.set_caching_device(lambda op: op.device)
    try:
        yield
    finally:
        if was_none:
            scope.set_caching_device(None)


def _flattened(fn: Callable, elems: Any) -> tuple[bool, list, Callable]:
    """(whether ``elems`` is a nest, its flat tensors, the function packing a flat list
    back into its structure), after checking ``fn``."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn}")
    input_nested = nest.is_nested(elems)

    def input_pack(flat: list) -> Any:
        return nest.pack_sequence_as(elems, flat) if input_nested else flat[0]

    return input_nested, nest.flatten(elems) if input_nested else [elems], input_pack


def _leading_dim(elems_flat: list) -> Any:
    static = elems_flat[0].shape
    if static.ndims is not None and static.ndims < 1:
        raise ValueError("elems must be a 1+ dimensional Tensor, not a scalar")
    return shape_lib.dimension_value(static[0]) or array_ops.shape(elems_flat[0])[0]


def _set_leading_dim(results: list, elems_flat: list) -> None:
    n_static = shape_lib.Dimension(shape_lib.dimension_value(
        elems_flat[0].shape.with_rank_at_least(1)[0]))
    for elem in elems_flat[1:]:
        n_static = n_static.merge_with(shape_lib.dimension_value(
            elem.shape.with_rank_at_least(1)[0]))
    for r in results:
        r.set_shape(shape_lib.TensorShape([n_static]).concatenate(r.shape[1:]))


def map_fn(fn: Callable, elems: Any, dtype: Any = None, parallel_iterations: int | None = None,
           back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
           name: str | None = None, fn_output_signature: Any = None) -> Any:
    """``fn`` applied to each slice of ``elems`` along its first dimension (a nest of
    tensors unstacked together); the results stacked. ``dtype``: the structure of
    ``fn``'s output when it differs from ``elems``'."""
    dtype = fn_output_signature if fn_output_signature is not None else dtype
    parallel_iterations = 10 if parallel_iterations is None else parallel_iterations
    input_nested, elems_flat, input_pack = _flattened(fn, elems)

    with ops_lib.name_scope(name, "map", elems_flat), _cached_variables():
        elems_flat = [convert_to_tensor(e, name="elem") for e in elems_flat]
        if dtype is None:
            output_nested, dtype = input_nested, input_pack([e.dtype for e in elems_flat])
        else:
            output_nested = nest.is_nested(dtype)
        dtype_flat = nest.flatten(dtype) if output_nested else [dtype]
        n = _leading_dim(elems_flat)
        elems_ta = [tensor_array_ops.TensorArray(dtype=e.dtype, size=n, dynamic_size=False,
                                                 infer_shape=True).unstack(e)
                    for e in elems_flat]
        accs_ta = [tensor_array_ops.TensorArray(dtype=dt, size=n, dynamic_size=False,
                                                infer_shape=infer_shape) for dt in dtype_flat]

        def compute(i: Any, tas: list) -> tuple:
            values = fn(input_pack([ta.read(i) for ta in elems_ta]))
            flat = nest.flatten(values) if output_nested else [values]
            if len(flat) != len(tas):
                raise ValueError(f"The two structures don't have the same number of elements."
                                 f" fn returned {len(flat)} values, dtype says {len(tas)}")
            return i + 1, [ta.write(i, v) for ta, v in zip(tas, flat)]

        _, r_a = while_loop(lambda i, _: i < n, compute, (array_ops.constant(0), accs_ta),
                            parallel_iterations=parallel_iterations, back_prop=back_prop,
                            swap_memory=swap_memory, maximum_iterations=n)
        results_flat = [r.stack() for r in r_a]
        _set_leading_dim(results_flat, elems_flat)
        return nest.pack_sequence_as(dtype, results_flat) if output_nested else results_flat[0]


def scan(fn: Callable, elems: Any, initializer: Any = None,
         parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
         infer_shape: bool = True, reverse: bool = False, name: str | None = None) -> Any:
    """The running ``a = fn(a, x)`` over the slices ``x`` of ``elems`` (from the last when
    ``reverse``), starting from ``initializer`` (else the first slice); every ``a``
    stacked."""
    input_nested, elems_flat, input_pack = _flattened(fn, elems)

    if initializer is None:
        output_nested, output_structure = input_nested, elems
    else:
        output_nested, output_structure = nest.is_nested(initializer), initializer

    def output_flatten(x: Any) -> list:
        return nest.flatten(x) if output_nested else [x]

    def output_pack(flat: list) -> Any:
        return nest.pack_sequence_as(output_structure, flat) if output_nested else flat[0]

    with ops_lib.name_scope(name, "scan", elems_flat), _cached_variables():
        elems_flat = [convert_to_tensor(e, name="elem") for e in elems_flat]
        n = _leading_dim(elems_flat)
        elems_ta = [tensor_array_ops.TensorArray(dtype=e.dtype, size=n, dynamic_size=False,
                                                 element_shape=e.shape[1:],
                                                 infer_shape=True).unstack(e)
                    for e in elems_flat]
        if initializer is None:
            a_flat = [ta.read(n - 1 if reverse else 0) for ta in elems_ta]
            i = n - 2 if reverse else 1
        else:
            a_flat = [convert_to_tensor(a) for a in output_flatten(initializer)]
            i = n - 1 if reverse else 0
        accs_ta = [tensor_array_ops.TensorArray(dtype=a.dtype, size=n, dynamic_size=False,
                                                element_shape=a.shape,
                                                infer_shape=infer_shape) for a in a_flat]
        if initializer is None:
            accs_ta = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs_ta, a_flat)]

        def compute(i: Any, a_flat: list, tas: list) -> tuple:
            packed_a = output_pack(a_flat)
            a_out = fn(packed_a, input_pack([ta.read(i) for ta in elems_ta]))
            nest.assert_same_structure(packed_a, a_out) if output_nested else None
            flat_a_out = output_flatten(a_out)
            tas = [ta.write(i, v) for ta, v in zip(tas, flat_a_out)]
            return (i - 1 if reverse else i + 1), flat_a_out, tas

        if reverse:
            initial_i, condition = i, (lambda i, _1, _2: i >= 0)
        else:
            initial_i, condition = i, (lambda i, _1, _2: i < n)
        _, _, r_a = while_loop(condition, compute,
                               (convert_to_tensor(initial_i), a_flat, accs_ta),
                               parallel_iterations=parallel_iterations, back_prop=back_prop,
                               swap_memory=swap_memory, maximum_iterations=n)
        results_flat = [r.stack() for r in r_a]
        _set_leading_dim(results_flat, elems_flat)
        return output_pack(results_flat)


def _fold(fn: Callable, elems: Any, initializer: Any, parallel_iterations: int,
          back_prop: bool, swap_memory: bool, name: str | None, default: str,
          reverse: bool) -> Any:
    input_nested, elems_flat, input_pack = _flattened(fn, elems)

    with ops_lib.name_scope(name, default, elems_flat), _cached_variables():
        elems_flat = [convert_to_tensor(e, name="elem") for e in elems_flat]
        n = _leading_dim(elems_flat)
        elems_ta = [tensor_array_ops.TensorArray(dtype=e.dtype, size=n, dynamic_size=False,
                                                 infer_shape=True).unstack(e)
                    for e in elems_flat]
        if initializer is None:
            a = input_pack([ta.read(n - 1 if reverse else 0) for ta in elems_ta])
            i = n - 1 if reverse else array_ops.constant(1)
        else:
            a = initializer
            i = n if reverse else array_ops.constant(0)

        def compute(i: Any, a: Any) -> tuple:
            if reverse:
                i = i - 1
            a = fn(a, input_pack([ta.read(i) for ta in elems_ta]))
            return (i if reverse else i + 1), a

        condition = (lambda i, a: i > 0) if reverse else (lambda i, a: i < n)
        _, r_a = while_loop(condition, compute, (i, a),
                            parallel_iterations=parallel_iterations, back_prop=back_prop,
                            swap_memory=swap_memory, maximum_iterations=n)
        return r_a


def foldl(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: str | None = None) -> Any:
    """``a = fn(a, x)`` over the slices of ``elems`` from the first; the last ``a``."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 "foldl", reverse=False)


def foldr(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: str | None = None) -> Any:
    """``a = fn(a, x)`` over the slices of ``elems`` from the last; the last ``a``."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 "foldr", reverse=True)


def hessians(ys: Any, xs: Any, name: str = "hessians", colocate_gradients_with_ops: bool = False,
             gate_gradients: bool = False, aggregation_method: Any = None) -> list:
    """The Hessian of ``sum(ys)`` with respect to each of ``xs`` (shape ``x.shape +
    x.shape``), one second derivative per element in a while loop, as TF builds it."""
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    kwargs = {"colocate_gradients_with_ops": colocate_gradients_with_ops,
              "gate_gradients": gate_gradients, "aggregation_method": aggregation_method}
    del name
    return [_hessian(gradient, x) for gradient, x in
            zip(gradients_impl.gradients(ys, xs, **kwargs), xs)]


def _hessian(gradient: ops_lib.Tensor, x: ops_lib.Tensor) -> ops_lib.Tensor:
    gradient = array_ops.reshape(gradient, [-1])
    n = array_ops.size(x)
    loop_vars = [array_ops.constant(0), tensor_array_ops.TensorArray(x.dtype, n)]
    _, hessian = while_loop(
        lambda j, _: j < n,
        lambda j, result: (j + 1, result.write(j, gradients_impl.gradients(gradient[j],
                                                                           x)[0])),
        loop_vars)
    shape = array_ops.shape(x)
    return array_ops.reshape(hessian.stack(), array_ops.concat((shape, shape), 0))
