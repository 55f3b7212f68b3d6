"""``tf.custom_gradient`` in graph mode (TF's construction: the outputs pass through an
IdentityN whose gradient is overridden by the function's ``grad_fn``) and
``tf.grad_pass_through``."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor

__all__ = ["custom_gradient", "grad_pass_through"]

_uids = itertools.count()


def _identity_n(tensors: list) -> list:
    return list(apply_op("IdentityN", input=list(tensors)).outputs)


def custom_gradient(f: Callable | None = None) -> Any:
    """Decorates ``f(*x) -> (y, grad_fn)``: ``y`` as computed, with ``grad_fn(*dy)``
    (``grad_fn(*dy, variables=...)`` when ``f`` reads variables) as its gradient."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")
        name = f"CustomGradient-{next(_uids)}"
        args = [convert_to_tensor(x) for x in args]
        graph = ops_lib.get_default_graph()
        before = set(id(v) for v in graph.get_collection(ops_lib.GraphKeys.TRAINABLE_VARIABLES))
        result, grad_fn = f(*args)
        new_vars = [v for v in graph.get_collection(ops_lib.GraphKeys.TRAINABLE_VARIABLES)
                    if id(v) not in before]
        if new_vars:
            raise TypeError("If using @custom_gradient with a function that creates "
                            "variables, the grad_fn must accept `variables`; graphcore "
                            "supports functions that use existing variables only")
        flat_result = [convert_to_tensor(r) for r in nest.flatten(result)]
        n_result = len(flat_result)
        # TF's search for the variables the outputs depend on starts from an (unused)
        # Identity of each output; built here too so the GraphDefs agree node for node.
        for r in flat_result:
            apply_op("Identity", input=r)

        @RegisterGradient(name)
        def internal_grad_fn(op: ops_lib.Operation, *result_grads: Any) -> list:
            del op
            grads = grad_fn(*result_grads[:n_result])
            grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
            if len(grads) != len(args):
                raise ValueError(f"custom_gradient function expected to return {len(args)} "
                                 f"gradients but returned {len(grads)} instead.")
            return [None] * n_result + grads

        with graph.gradient_override_map({"IdentityN": name}):
            all_tensors = _identity_n(flat_result + list(args))
        return nest.pack_sequence_as(result, all_tensors[:n_result]) \
            if nest.is_nested(result) else all_tensors[0]

    return decorated


def grad_pass_through(f: Callable) -> Callable:
    """``f`` whose gradient is the identity: ``grad_pass_through(f)(x)`` is ``f(x)`` in
    value, ``x`` to backpropagation."""

    @custom_gradient
    def _grad_pass_through_op(*args: Any) -> Any:
        def grad(*dy: Any) -> Any:
            return list(dy) if len(dy) > 1 else dy[0]

        return f(*args), grad

    @functools.wraps(f)
    def wrapped(*args: Any) -> Any:
        return _grad_pass_through_op(*args)

    return wrapped

