"""CPU (numpy) kernels of the FTRL, Adadelta, proximal and Adagrad-DA training ops, dense
(:mod:`graphcore.train.training_ops`) and sparse (:mod:`graphcore.ops.sparse_training_ops`),
over ref variables and resource handles.

TF's sparse kernels apply the dense formula to each gathered row, so each formula below is
written once, over whole arrays or rows (``refs`` updated in place; ``v`` the values by the
op's input names), and registered through both kernel factories of the existing families.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from graphcore.kernels.sparse_training_kernels import _sparse_training_kernel
from graphcore.kernels.training_kernels import _training_kernel


def _ftrl(flags: dict, var, accum, linear, v: dict) -> None:
    grad, lr, l1, l2, lr_power = v["grad"], v["lr"], v["l1"], v["l2"], v["lr_power"]
    two = var.dtype.type(2)
    shrunk = grad + two * v["l2_shrinkage"] * var if "l2_shrinkage" in v else grad
    new_accum = accum + grad * grad
    if lr_power == var.dtype.type(-0.5):
        new_power, old_power = np.sqrt(new_accum), np.sqrt(accum)
    else:
        new_power, old_power = new_accum ** -lr_power, accum ** -lr_power
    if flags["multiply_linear_by_lr"]:
        linear += shrunk * lr - (new_power - old_power) * var
        l1_eff, y = l1 * lr, new_power + two * l2 * lr
    else:
        linear += shrunk - (new_power - old_power) / lr * var
        l1_eff, y = l1, new_power / lr + two * l2
    x = l1_eff * np.sign(linear) - linear
    var[...] = np.where(np.abs(linear) > l1_eff, x / y, var.dtype.type(0))
    accum[...] = new_accum


def _adadelta(flags: dict, var, accum, accum_update, v: dict) -> None:
    grad, lr, rho, epsilon = v["grad"], v["lr"], v["rho"], v["epsilon"]
    one = var.dtype.type(1)
    accum[...] = accum * rho + np.square(grad) * (one - rho)
    update = np.sqrt(accum_update + epsilon) * (one / np.sqrt(accum + epsilon)) * grad
    var -= update * lr
    accum_update[...] = accum_update * rho + np.square(update) * (one - rho)


def _proximal_step(var, prox_var, lr, l1, l2) -> None:
    """var = sign(prox) * max(|prox| - lr * l1, 0) / (1 + l2 * lr) (no shrinkage when
    l1 is 0); ``lr`` a scalar or, for Adagrad's rate, an array."""
    one = var.dtype.type(1)
    if l1 > 0:
        var[...] = (np.sign(prox_var) * np.maximum(np.abs(prox_var) - lr * l1, 0)
                    / (one + l2 * lr))
    else:
        var[...] = prox_var / (one + l2 * lr)


def _proximal_gradient_descent(flags: dict, var, v: dict) -> None:
    alpha = v["alpha"]
    grad = v["delta"] if "delta" in v else v["grad"]
    _proximal_step(var, var - grad * alpha, alpha, v["l1"], v["l2"])


def _proximal_adagrad(flags: dict, var, accum, v: dict) -> None:
    grad = v["grad"]
    accum += np.square(grad)
    learning_rate = v["lr"] * (var.dtype.type(1) / np.sqrt(accum))
    _proximal_step(var, var - grad * learning_rate, learning_rate, v["l1"], v["l2"])


def _adagrad_da(flags: dict, var, gradient_accum, gradient_squared_accum, v: dict) -> None:
    grad, lr, l1, l2 = v["grad"], v["lr"], v["l1"], v["l2"]
    step = np.float32(v["global_step"]).astype(var.dtype)  # TF: static_cast<float>(step)
    gradient_accum += grad
    gradient_squared_accum += np.square(grad)
    denom = l2 * (step * lr) + np.sqrt(gradient_squared_accum)
    if l1 > 0:
        var[...] = (lr * -np.sign(gradient_accum)
                    * np.maximum(np.abs(gradient_accum) - step * l1, 0) / denom)
    else:
        var[...] = lr * gradient_accum * var.dtype.type(-1) / denom


def _register(op_type: str, refs: tuple[str, ...], values: tuple[str, ...],
              formula: Callable[..., None], bool_attrs: tuple[str, ...] = ()) -> None:
    """``formula`` as the kernels of Apply<op_type> and SparseApply<op_type> (and their
    Resource twins); the sparse op names the dense op's ``delta`` ``grad``."""
    n = len(refs)
    sparse_values = tuple("grad" if name == "delta" else name for name in values)
    sparse_order = [name for name in sparse_values if name != "grad"] + ["grad"]

    def dense(tmp, flags, *args):
        formula(flags, *args[:n], dict(zip(values, args[n:])))

    def sparse(flags, *args):
        formula(flags, *args[:n], dict(zip(sparse_order, args[n:])))

    _training_kernel("Apply" + op_type, refs, values, dense, bool_attrs)
    _sparse_training_kernel("SparseApply" + op_type, refs, sparse_values, sparse, bool_attrs)


_FTRL_REFS = ("var", "accum", "linear")
_register("Ftrl", _FTRL_REFS, ("grad", "lr", "l1", "l2", "lr_power"), _ftrl,
          ("multiply_linear_by_lr",))
_register("FtrlV2", _FTRL_REFS, ("grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"), _ftrl,
          ("multiply_linear_by_lr",))
_register("Adadelta", ("var", "accum", "accum_update"), ("lr", "rho", "epsilon", "grad"),
          _adadelta)
_register("ProximalGradientDescent", ("var",), ("alpha", "l1", "l2", "delta"),
          _proximal_gradient_descent)
_register("ProximalAdagrad", ("var", "accum"), ("lr", "l1", "l2", "grad"), _proximal_adagrad)
_register("AdagradDA", ("var", "gradient_accumulator", "gradient_squared_accumulator"),
          ("grad", "lr", "l1", "l2", "global_step"), _adagrad_da)
