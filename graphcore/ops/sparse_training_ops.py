"""The sparse training ops (TF's ``training_ops.cc``): SparseApplyMomentum,
SparseApplyAdagrad, SparseApplyRMSProp, SparseApplyCenteredRMSProp, SparseApplyFtrl(V2),
SparseApplyAdadelta, SparseApplyProximalGradientDescent, SparseApplyProximalAdagrad and
SparseApplyAdagradDA over ref variables and
their ResourceSparseApply* twins over resource handles. Each updates only the rows
``indices`` of the variable and its slots with the matching rows of ``grad`` (what TF1's
optimizers emit for IndexedSlices gradients). Kernels live in
:mod:`graphcore.kernels.sparse_training_kernels`.
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import gradient_registry, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op

__all__: list[str] = []


def _check_rank(op: ops_lib.Operation, i: int, rank: int) -> None:
    s = op._inputs[i].shape
    if s.ndims is not None and s.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {s.ndims} for '{op.name}'")


def _sparse_apply_shape_fn(n_refs: int, scalars: tuple[int, ...], grad: int, resource: bool):
    """The refs merge into the output's shape; grad is indices.shape + var.shape[1:]."""

    def shape_fn(op: ops_lib.Operation) -> list:
        shape = shape_lib.unknown_shape()
        if not resource:
            for i in range(n_refs):
                shape = shape.merge_with(op._inputs[i].shape)
        for i in scalars:
            _check_rank(op, i, 0)
        _check_rank(op, grad + 1, 1)
        g = op._inputs[grad].shape
        indices = op._inputs[grad + 1].shape
        if g.ndims is not None:
            g.with_rank_at_least(1)[:1].merge_with(indices)
            if shape.ndims is not None:
                g[1:].merge_with(shape[1:])
        return [] if resource else [shape]

    return shape_fn


def _register(op_type: str, refs: list[str], values: list[str], grad_index: int,
              extra_attrs: tuple[str, ...] = ()) -> None:
    """``op_type`` over ref variables and ``Resource<op_type>`` over handles: inputs are
    the refs, then ``values`` with ``indices: Tindices`` right after ``grad``."""
    n = len(refs) + len(values) + 1
    grad = grad_index
    scalars = tuple(i for i in range(len(refs), n) if i not in (grad, grad + 1))
    value_specs = [v if ":" in v else f"{v}: T" for v in values]
    value_specs.insert(values.index("grad") + 1, "indices: Tindices")
    for resource in (False, True):
        name = "Resource" + op_type if resource else op_type
        ref_type = "resource" if resource else "Ref(T)"
        builder = op_registry.register_op(name)
        for spec in [f"{r}: {ref_type}" for r in refs] + value_specs:
            builder.input(spec)
        if not resource:
            builder.output("out: Ref(T)")
        builder.attr("T: numbertype").attr("Tindices: {int32, int64}") \
            .attr("use_locking: bool = false")
        for spec in extra_attrs:
            builder.attr(spec)
        if resource:
            builder.stateful()
        builder.shape_fn(_sparse_apply_shape_fn(len(refs), scalars, grad, resource))
        gradient_registry.NotDifferentiable(name)


_register("SparseApplyMomentum", ["var", "accum"], ["lr", "grad", "momentum"], 3,
          ("use_nesterov: bool = false",))
_register("SparseApplyAdagrad", ["var", "accum"], ["lr", "grad"], 3,
          ("update_slots: bool = true",))
_register("SparseApplyRMSProp", ["var", "ms", "mom"],
          ["lr", "rho", "momentum", "epsilon", "grad"], 7)
_register("SparseApplyCenteredRMSProp", ["var", "mg", "ms", "mom"],
          ["lr", "rho", "momentum", "epsilon", "grad"], 8)
_register("SparseApplyFtrl", ["var", "accum", "linear"], ["grad", "lr", "l1", "l2", "lr_power"],
          3, ("multiply_linear_by_lr: bool = false",))
_register("SparseApplyFtrlV2", ["var", "accum", "linear"],
          ["grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"], 3,
          ("multiply_linear_by_lr: bool = false",))
_register("SparseApplyAdadelta", ["var", "accum", "accum_update"],
          ["lr", "rho", "epsilon", "grad"], 6)
_register("SparseApplyProximalGradientDescent", ["var"], ["alpha", "l1", "l2", "grad"], 4)
_register("SparseApplyProximalAdagrad", ["var", "accum"], ["lr", "l1", "l2", "grad"], 5)
_register("SparseApplyAdagradDA", ["var", "gradient_accumulator",
                                   "gradient_squared_accumulator"],
          ["grad", "lr", "l1", "l2", "global_step: int64"], 3)


def _apply(op_type: str, name: str | None, refs: dict, **kwargs: Any) -> Any:
    """``op_type`` over ref variables (its output: the variable's ref) or, for resource
    variables, ``Resource<op_type>`` over their handles (an Operation)."""
    if hasattr(refs["var"], "handle"):
        handles = {k: v.handle for k, v in refs.items()}
        return apply_op("Resource" + op_type, name=name, **handles, **kwargs)
    return apply_op(op_type, name=name, **refs, **kwargs).outputs[0]


def sparse_apply_momentum(var: Any, accum: Any, lr: Any, grad: Any, indices: Any,
                          momentum: Any, use_locking: bool = False, use_nesterov: bool = False,
                          name: str | None = None) -> Any:
    """Rows ``indices``: accum = accum * momentum + grad; var -= lr * accum."""
    return _apply("SparseApplyMomentum", name, {"var": var, "accum": accum}, lr=lr, grad=grad,
                  indices=indices, momentum=momentum, use_locking=use_locking,
                  use_nesterov=use_nesterov)


def sparse_apply_adagrad(var: Any, accum: Any, lr: Any, grad: Any, indices: Any,
                         use_locking: bool = False, update_slots: bool = True,
                         name: str | None = None) -> Any:
    """Rows ``indices``: accum += grad ** 2; var -= lr * grad / sqrt(accum)."""
    return _apply("SparseApplyAdagrad", name, {"var": var, "accum": accum}, lr=lr, grad=grad,
                  indices=indices, use_locking=use_locking, update_slots=update_slots)


def sparse_apply_rms_prop(var: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any,
                          epsilon: Any, grad: Any, indices: Any, use_locking: bool = False,
                          name: str | None = None) -> Any:
    """ApplyRMSProp on the rows ``indices``."""
    return _apply("SparseApplyRMSProp", name, {"var": var, "ms": ms, "mom": mom}, lr=lr,
                  rho=rho, momentum=momentum, epsilon=epsilon, grad=grad, indices=indices,
                  use_locking=use_locking)


def sparse_apply_centered_rms_prop(var: Any, mg: Any, ms: Any, mom: Any, lr: Any, rho: Any,
                                   momentum: Any, epsilon: Any, grad: Any, indices: Any,
                                   use_locking: bool = False, name: str | None = None) -> Any:
    """ApplyCenteredRMSProp on the rows ``indices``."""
    return _apply("SparseApplyCenteredRMSProp", name,
                  {"var": var, "mg": mg, "ms": ms, "mom": mom}, lr=lr, rho=rho,
                  momentum=momentum, epsilon=epsilon, grad=grad, indices=indices,
                  use_locking=use_locking)


def sparse_apply_ftrl(var: Any, accum: Any, linear: Any, grad: Any, indices: Any, lr: Any,
                      l1: Any, l2: Any, lr_power: Any, use_locking: bool = False,
                      multiply_linear_by_lr: bool = False, name: str | None = None) -> Any:
    """ApplyFtrl on the rows ``indices``."""
    return _apply("SparseApplyFtrl", name, {"var": var, "accum": accum, "linear": linear},
                  grad=grad, indices=indices, lr=lr, l1=l1, l2=l2, lr_power=lr_power,
                  use_locking=use_locking, multiply_linear_by_lr=multiply_linear_by_lr)


def sparse_apply_ftrl_v2(var: Any, accum: Any, linear: Any, grad: Any, indices: Any, lr: Any,
                         l1: Any, l2: Any, l2_shrinkage: Any, lr_power: Any,
                         use_locking: bool = False, multiply_linear_by_lr: bool = False,
                         name: str | None = None) -> Any:
    """ApplyFtrlV2 on the rows ``indices``."""
    return _apply("SparseApplyFtrlV2", name, {"var": var, "accum": accum, "linear": linear},
                  grad=grad, indices=indices, lr=lr, l1=l1, l2=l2, l2_shrinkage=l2_shrinkage,
                  lr_power=lr_power, use_locking=use_locking,
                  multiply_linear_by_lr=multiply_linear_by_lr)


def sparse_apply_adadelta(var: Any, accum: Any, accum_update: Any, lr: Any, rho: Any,
                          epsilon: Any, grad: Any, indices: Any, use_locking: bool = False,
                          name: str | None = None) -> Any:
    """ApplyAdadelta on the rows ``indices``."""
    return _apply("SparseApplyAdadelta", name,
                  {"var": var, "accum": accum, "accum_update": accum_update}, lr=lr, rho=rho,
                  epsilon=epsilon, grad=grad, indices=indices, use_locking=use_locking)


def sparse_apply_proximal_gradient_descent(var: Any, alpha: Any, l1: Any, l2: Any, grad: Any,
                                           indices: Any, use_locking: bool = False,
                                           name: str | None = None) -> Any:
    """ApplyProximalGradientDescent on the rows ``indices``."""
    return _apply("SparseApplyProximalGradientDescent", name, {"var": var}, alpha=alpha,
                  l1=l1, l2=l2, grad=grad, indices=indices, use_locking=use_locking)


def sparse_apply_proximal_adagrad(var: Any, accum: Any, lr: Any, l1: Any, l2: Any, grad: Any,
                                  indices: Any, use_locking: bool = False,
                                  name: str | None = None) -> Any:
    """ApplyProximalAdagrad on the rows ``indices``."""
    return _apply("SparseApplyProximalAdagrad", name, {"var": var, "accum": accum}, lr=lr,
                  l1=l1, l2=l2, grad=grad, indices=indices, use_locking=use_locking)


def sparse_apply_adagrad_da(var: Any, gradient_accumulator: Any,
                            gradient_squared_accumulator: Any, grad: Any, indices: Any, lr: Any,
                            l1: Any, l2: Any, global_step: Any, use_locking: bool = False,
                            name: str | None = None) -> Any:
    """ApplyAdagradDA on the rows ``indices``."""
    return _apply("SparseApplyAdagradDA", name,
                  {"var": var, "gradient_accumulator": gradient_accumulator,
                   "gradient_squared_accumulator": gradient_squared_accumulator},
                  grad=grad, indices=indices, lr=lr, l1=l1, l2=l2, global_step=global_step,
                  use_locking=use_locking)
