"""CPU (numpy) kernels of :mod:`graphcore.ops.nn_activation_ops`: LeakyRelu, Selu,
Softsign and their grad-helper ops (TF's functors in ``relu_op_functor.h``)."""

from __future__ import annotations

import numpy as np

from graphcore.kernels import intra_op
from graphcore.kernels.math_kernels import binary_kernel, unary_kernel
from graphcore.kernels.nn_kernels import exp_minus_one_below_zero, positive_part
from graphcore.kernels.registry import KernelContext, register_kernel

_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123


def _selu(x):
    # TF: x < 0 ? scale_alpha * (exp(x) - 1) : scale * x (the two sides summed: each is
    # exactly 0 where the other applies)
    e = exp_minus_one_below_zero(x)
    e *= _SELU_SCALE_ALPHA
    positive = positive_part(x)
    positive *= _SELU_SCALE
    e += positive
    return e


def _selu_grad(g, y):
    return np.where(y < 0, g * (y + _SELU_SCALE_ALPHA), g * _SELU_SCALE)


register_kernel("Selu")(unary_kernel(intra_op.elementwise(_selu), low_float_work=True))
register_kernel("SeluGrad")(binary_kernel(_selu_grad, low_float_work=True))
register_kernel("Softsign")(unary_kernel(lambda x: x / (np.abs(x) + 1), low_float_work=True))
register_kernel("SoftsignGrad")(binary_kernel(
    lambda g, f: g / np.square(1 + np.abs(f)), low_float_work=True))


@register_kernel("LeakyRelu")
def _leaky_relu(ctx: KernelContext):
    alpha = ctx.attr("alpha")
    return unary_kernel(lambda x: np.where(x > 0, x, x * np.asarray(alpha, x.dtype)),
                        low_float_work=True)(ctx)


@register_kernel("LeakyReluGrad")
def _leaky_relu_grad(ctx: KernelContext):
    alpha = ctx.attr("alpha")
    return binary_kernel(lambda g, f: np.where(f > 0, g, g * np.asarray(alpha, g.dtype)),
                         low_float_work=True)(ctx)
