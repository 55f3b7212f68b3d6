"""``tf.math``: TF1's ``tf.math`` names, gathered from the op modules that define them
(math, elementwise, special math, nn, sort, array and bitwise ops)."""

# ruff: noqa: F401, I001
from graphcore.ops.array_ops import invert_permutation, unsorted_segment_sum
from graphcore.ops.check_ops import is_non_decreasing, is_strictly_increasing
from graphcore.ops.elementwise_ops import (
    acos, acosh, angle, asin, asinh, atan, atan2, atanh, betainc, cosh, count_nonzero,
    digamma, erf, erfc, erfinv, expm1, igamma, igammac, imag, is_finite, is_inf, is_nan, lbeta,
    lgamma, log_sigmoid, ndtri, polygamma, real, reduce_logsumexp, sinh, tan, xdivy, xlogy,
    zeta,
)
from graphcore.ops.math_ops import (
    abs, add, add_n, argmax, argmin, ceil, conj, cos, cumprod, cumsum, divide, equal, exp,
    floor, floordiv, floormod, greater, greater_equal, less, less_equal, log, log1p,
    logical_and, logical_not, logical_or, logical_xor, maximum, minimum, mod, multiply,
    negative, not_equal, pow, reciprocal, reduce_all, reduce_any, reduce_max, reduce_mean,
    reduce_min, reduce_prod, reduce_sum, rint, round, rsqrt, scalar_mul, sigmoid, sign, sin,
    sqrt, square, squared_difference, subtract, tanh, truediv,
)
from graphcore.ops.math_ops import div_no_nan as divide_no_nan
from graphcore.ops.manip_ops import bincount
from graphcore.ops.math_compat import (
    accumulate_n, erfcinv, polyval, reciprocal_no_nan, reduce_std, reduce_variance,
)
from graphcore.ops.nn_ops import in_top_k, l2_normalize, log_softmax, softmax, softplus
from graphcore.ops.segment_ops import (
    segment_max, segment_mean, segment_min, segment_prod, segment_sum, unsorted_segment_max,
    unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sqrt_n,
)
from graphcore.ops.nn_activation_ops import softsign
from graphcore.ops.nn_impl import zero_fraction
from graphcore.ops.special_math_ops import (
    bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, cumulative_logsumexp, multiply_no_nan,
    nextafter, reduce_euclidean_norm, sobol_sample, xlog1py,
)
from graphcore import math_special as special
from graphcore.ops.sort_ops import approx_max_k, approx_min_k, top_k
from graphcore.ops.confusion_matrix import confusion_matrix
