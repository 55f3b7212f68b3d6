"""The dense training ops on ref variables (TF's ``training_ops.cc``): ApplyGradientDescent,
ApplyMomentum, ApplyAdagrad, ApplyAdagradV2, ApplyAdam, ApplyRMSProp, ApplyCenteredRMSProp,
ApplyFtrl(V2), ApplyAdadelta, ApplyProximalGradientDescent, ApplyProximalAdagrad and
ApplyAdagradDA.

Each takes the variable (and its slots) as ``Ref(T)`` inputs, updates them in place and
returns the variable's ref.  The wrappers below are ``gen_training_ops``' Python names;
TF1's ``tf.train`` does not export them, so ``__all__`` is empty.  Kernels live in
:mod:`graphcore.kernels.training_kernels`.
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import gradient_registry, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op

__all__: list[str] = []


def _apply_shape_fn(n_refs: int, scalars: tuple[int, ...], grad: int):
    """Shape function of an Apply* op: the refs (inputs ``0..n_refs-1``) and the gradient
    (input ``grad``) merge into the output's shape; inputs in ``scalars`` are rank 0."""

    def shape_fn(op: ops_lib.Operation) -> list:
        shape = shape_lib.unknown_shape()
        for i in (*range(n_refs), grad):
            shape = shape.merge_with(op._inputs[i].shape)
        for i in scalars:
            s = op._inputs[i].shape
            if s.ndims is not None and s.ndims != 0:
                raise ValueError(f"Shape must be rank 0 but is rank {s.ndims}")
        return [shape]

    return shape_fn


def _resource_apply_shape_fn(scalars: tuple[int, ...]):
    """Shape function of a ResourceApply* op: no outputs; inputs in ``scalars`` rank 0."""

    def shape_fn(op: ops_lib.Operation) -> list:
        for i in scalars:
            s = op._inputs[i].shape
            if s.ndims is not None and s.ndims != 0:
                raise ValueError(f"Shape must be rank 0 but is rank {s.ndims}")
        return []

    return shape_fn


def _register(op_type: str, refs: list[str], values: list[str], grad_index: int,
              extra_attrs: tuple[str, ...] = ()) -> None:
    """Registers ``op_type`` over ref variables and ``Resource<op_type>`` over resource
    handles (TF's pair: the latter has no output)."""
    n = len(refs) + len(values)
    scalars = tuple(i for i in range(len(refs), n) if i != grad_index)
    for resource in (False, True):
        name = "Resource" + op_type if resource else op_type
        builder = op_registry.register_op(name)
        for ref in refs:
            builder.input(f"{ref}: resource" if resource else f"{ref}: Ref(T)")
        for value in values:
            builder.input(value if ":" in value else f"{value}: T")
        if not resource:
            builder.output("out: Ref(T)")
        builder.attr("T: numbertype").attr("use_locking: bool = false")
        for spec in extra_attrs:
            builder.attr(spec)
        if resource:
            builder.stateful().shape_fn(_resource_apply_shape_fn(scalars))
        else:
            builder.shape_fn(_apply_shape_fn(len(refs), scalars, grad_index))
        gradient_registry.NotDifferentiable(name)


_register("ApplyGradientDescent", ["var"], ["alpha", "delta"], 2)
_register("ApplyMomentum", ["var", "accum"], ["lr", "grad", "momentum"], 3,
          ("use_nesterov: bool = false",))
_register("ApplyAdagrad", ["var", "accum"], ["lr", "grad"], 3, ("update_slots: bool = true",))
_register("ApplyAdagradV2", ["var", "accum"], ["lr", "epsilon", "grad"], 4,
          ("update_slots: bool = true",))
_register("ApplyAdam", ["var", "m", "v"],
          ["beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"], 9,
          ("use_nesterov: bool = false",))
_register("ApplyRMSProp", ["var", "ms", "mom"], ["lr", "rho", "momentum", "epsilon", "grad"], 7)
_register("ApplyCenteredRMSProp", ["var", "mg", "ms", "mom"],
          ["lr", "rho", "momentum", "epsilon", "grad"], 8)
_register("ApplyFtrl", ["var", "accum", "linear"], ["grad", "lr", "l1", "l2", "lr_power"], 3,
          ("multiply_linear_by_lr: bool = false",))
_register("ApplyFtrlV2", ["var", "accum", "linear"],
          ["grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"], 3,
          ("multiply_linear_by_lr: bool = false",))
_register("ApplyAdadelta", ["var", "accum", "accum_update"], ["lr", "rho", "epsilon", "grad"], 6)
_register("ApplyProximalGradientDescent", ["var"], ["alpha", "l1", "l2", "delta"], 4)
_register("ApplyProximalAdagrad", ["var", "accum"], ["lr", "l1", "l2", "grad"], 5)
_register("ApplyAdagradDA", ["var", "gradient_accumulator", "gradient_squared_accumulator"],
          ["grad", "lr", "l1", "l2", "global_step: int64"], 3)


def _apply(op_type: str, name: str | None, refs: dict, **kwargs: Any) -> Any:
    """``op_type`` over ref variables (its output: the variable's ref) or, when the
    variable is a resource variable, ``Resource<op_type>`` over the handles (an Operation,
    as TF's optimizers emit for resource variables)."""
    if hasattr(refs["var"], "handle"):
        handles = {k: v.handle for k, v in refs.items()}
        return apply_op("Resource" + op_type, name=name, **handles, **kwargs)
    return apply_op(op_type, name=name, **refs, **kwargs).outputs[0]


def apply_gradient_descent(var: Any, alpha: Any, delta: Any, use_locking: bool = False,
                           name: str | None = None) -> ops_lib.Tensor:
    """var -= alpha * delta."""
    return _apply("ApplyGradientDescent", name, {"var": var},
                  alpha=alpha, delta=delta, use_locking=use_locking)


def apply_momentum(var: Any, accum: Any, lr: Any, grad: Any, momentum: Any,
                   use_locking: bool = False, use_nesterov: bool = False,
                   name: str | None = None) -> ops_lib.Tensor:
    """accum = accum * momentum + grad; var -= lr * accum (Nesterov: lr * (grad +
    momentum * accum))."""
    return _apply("ApplyMomentum", name, {"var": var, "accum": accum},
                  lr=lr, grad=grad, momentum=momentum, use_locking=use_locking,
                  use_nesterov=use_nesterov)


def apply_adagrad(var: Any, accum: Any, lr: Any, grad: Any, use_locking: bool = False,
                  update_slots: bool = True, name: str | None = None) -> ops_lib.Tensor:
    """accum += grad ** 2; var -= lr * grad / sqrt(accum)."""
    return _apply("ApplyAdagrad", name, {"var": var, "accum": accum},
                  lr=lr, grad=grad, use_locking=use_locking, update_slots=update_slots)


def apply_adagrad_v2(var: Any, accum: Any, lr: Any, epsilon: Any, grad: Any,
                     use_locking: bool = False, update_slots: bool = True,
                     name: str | None = None) -> ops_lib.Tensor:
    """accum += grad ** 2; var -= lr * grad / (sqrt(accum) + epsilon)."""
    return _apply("ApplyAdagradV2", name, {"var": var, "accum": accum},
                  lr=lr, epsilon=epsilon, grad=grad, use_locking=use_locking,
                  update_slots=update_slots)


def apply_adam(var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any,
               beta1: Any, beta2: Any, epsilon: Any, grad: Any, use_locking: bool = False,
               use_nesterov: bool = False, name: str | None = None) -> ops_lib.Tensor:
    """The Adam update (TF's formulation with the bias correction folded into lr)."""
    return _apply("ApplyAdam", name, {"var": var, "m": m, "v": v},
                  beta1_power=beta1_power, beta2_power=beta2_power, lr=lr, beta1=beta1, beta2=beta2,
                  epsilon=epsilon, grad=grad, use_locking=use_locking, use_nesterov=use_nesterov)


def apply_rms_prop(var: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any,
                   epsilon: Any, grad: Any, use_locking: bool = False,
                   name: str | None = None) -> ops_lib.Tensor:
    """ms = rho * ms + (1 - rho) * grad ** 2; mom = momentum * mom + lr * grad /
    sqrt(ms + epsilon); var -= mom."""
    return _apply("ApplyRMSProp", name, {"var": var, "ms": ms, "mom": mom},
                  lr=lr, rho=rho, momentum=momentum, epsilon=epsilon, grad=grad,
                  use_locking=use_locking)


def apply_centered_rms_prop(var: Any, mg: Any, ms: Any, mom: Any, lr: Any, rho: Any,
                            momentum: Any, epsilon: Any, grad: Any, use_locking: bool = False,
                            name: str | None = None) -> ops_lib.Tensor:
    """RMSProp normalized by the centered second moment ms - mg ** 2."""
    return _apply("ApplyCenteredRMSProp", name, {"var": var, "mg": mg, "ms": ms, "mom": mom},
                  lr=lr, rho=rho, momentum=momentum, epsilon=epsilon, grad=grad,
                  use_locking=use_locking)


def apply_ftrl(var: Any, accum: Any, linear: Any, grad: Any, lr: Any, l1: Any, l2: Any,
               lr_power: Any, use_locking: bool = False, multiply_linear_by_lr: bool = False,
               name: str | None = None) -> ops_lib.Tensor:
    """The FTRL-proximal update (McMahan et al., 2013) of var, accum and linear."""
    return _apply("ApplyFtrl", name, {"var": var, "accum": accum, "linear": linear},
                  grad=grad, lr=lr, l1=l1, l2=l2, lr_power=lr_power, use_locking=use_locking,
                  multiply_linear_by_lr=multiply_linear_by_lr)


def apply_ftrl_v2(var: Any, accum: Any, linear: Any, grad: Any, lr: Any, l1: Any, l2: Any,
                  l2_shrinkage: Any, lr_power: Any, use_locking: bool = False,
                  multiply_linear_by_lr: bool = False,
                  name: str | None = None) -> ops_lib.Tensor:
    """ApplyFtrl with the shrinkage L2 term: linear sees grad + 2 * l2_shrinkage * var."""
    return _apply("ApplyFtrlV2", name, {"var": var, "accum": accum, "linear": linear},
                  grad=grad, lr=lr, l1=l1, l2=l2, l2_shrinkage=l2_shrinkage,
                  lr_power=lr_power, use_locking=use_locking,
                  multiply_linear_by_lr=multiply_linear_by_lr)


def apply_adadelta(var: Any, accum: Any, accum_update: Any, lr: Any, rho: Any, epsilon: Any,
                   grad: Any, use_locking: bool = False,
                   name: str | None = None) -> ops_lib.Tensor:
    """accum = rho * accum + (1 - rho) * grad ** 2; update = sqrt(accum_update + eps) /
    sqrt(accum + eps) * grad; var -= lr * update; accum_update likewise of update ** 2."""
    return _apply("ApplyAdadelta", name,
                  {"var": var, "accum": accum, "accum_update": accum_update},
                  lr=lr, rho=rho, epsilon=epsilon, grad=grad, use_locking=use_locking)


def apply_proximal_gradient_descent(var: Any, alpha: Any, l1: Any, l2: Any, delta: Any,
                                    use_locking: bool = False,
                                    name: str | None = None) -> ops_lib.Tensor:
    """FOBOS: prox = var - alpha * delta; var = sign(prox) * max(|prox| - alpha * l1, 0)
    / (1 + alpha * l2)."""
    return _apply("ApplyProximalGradientDescent", name, {"var": var}, alpha=alpha, l1=l1,
                  l2=l2, delta=delta, use_locking=use_locking)


def apply_proximal_adagrad(var: Any, accum: Any, lr: Any, l1: Any, l2: Any, grad: Any,
                           use_locking: bool = False,
                           name: str | None = None) -> ops_lib.Tensor:
    """FOBOS with Adagrad's learning rate lr / sqrt(accum) (accum += grad ** 2 first)."""
    return _apply("ApplyProximalAdagrad", name, {"var": var, "accum": accum}, lr=lr, l1=l1,
                  l2=l2, grad=grad, use_locking=use_locking)


def apply_adagrad_da(var: Any, gradient_accumulator: Any, gradient_squared_accumulator: Any,
                     grad: Any, lr: Any, l1: Any, l2: Any, global_step: Any,
                     use_locking: bool = False, name: str | None = None) -> ops_lib.Tensor:
    """Adagrad dual averaging: var from the accumulated gradient and squared gradient."""
    return _apply("ApplyAdagradDA", name,
                  {"var": var, "gradient_accumulator": gradient_accumulator,
                   "gradient_squared_accumulator": gradient_squared_accumulator},
                  grad=grad, lr=lr, l1=l1, l2=l2, global_step=global_step,
                  use_locking=use_locking)
