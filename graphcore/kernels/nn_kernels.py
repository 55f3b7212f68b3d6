"""CPU (numpy) kernels of the nn ops: activations, softmax, cross entropy, bias add, l2 loss,
in_top_k (convolutions are in conv_kernels.py, pooling in pool_kernels.py)."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import forwarding, intra_op
from graphcore.kernels.forwarding import getrefcount
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _shape_text(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _work_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype to compute in: half-precision types widen to float32."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f" and dtype.itemsize >= 4:
        return dtype
    if dtype.kind in "iu":
        return dtype
    return np.dtype(np.float32)


def _out_dtype(ctx: KernelContext, index: int = 0) -> np.dtype:
    return np.dtype(ctx.output_types[index].base_dtype.as_numpy_dtype)


# -- activations ----------------------------------------------------------------------------

def _unary(fn):
    def factory(ctx: KernelContext):
        out = _out_dtype(ctx)
        work = _work_dtype(out)

        def compute(x):
            x = np.asarray(x)
            return (np.asarray(fn(x.astype(work, copy=False))).astype(out, copy=False),)

        return compute

    return factory


def _binary(fn):
    def factory(ctx: KernelContext):
        out = _out_dtype(ctx)
        work = _work_dtype(out)

        def compute(a, b):
            a = np.asarray(a).astype(work, copy=False)
            b = np.asarray(b).astype(work, copy=False)
            if a.shape != b.shape:
                raise _invalid(f"Incompatible shapes: {_shape_text(a.shape)} vs. "
                               f"{_shape_text(b.shape)}")
            return (np.asarray(fn(a, b)).astype(out, copy=False),)

        return compute

    return factory


class _Zeros:
    """A zero array the size of ``x`` (read-only, kept and grown per kernel): numpy's
    ``maximum`` against a full array is ~3x faster than against a broadcast scalar."""

    __slots__ = ("_flat",)

    def __init__(self) -> None:
        self._flat = np.zeros(0, np.float32)

    def like(self, x: np.ndarray) -> np.ndarray:
        flat = self._flat
        if flat.dtype != x.dtype or flat.size < x.size:
            flat = np.zeros(x.size, x.dtype)
            flat.flags.writeable = False
            self._flat = flat
        return flat[:x.size].reshape(x.shape)


@register_kernel("Relu")
def _relu_kernel(ctx: KernelContext):
    out = _out_dtype(ctx)
    work = _work_dtype(out)
    zeros = _Zeros()

    def compute(x):
        x = np.asarray(x).astype(work, copy=False)
        return (np.maximum(x, zeros.like(x)).astype(out, copy=False),)

    def forward(x):
        if getrefcount(x) == refs and type(x) is np.ndarray and x.dtype == out and \
                out == work and x.base is None and x.flags.writeable:
            return (np.maximum(x, zeros.like(x), out=x),)
        return compute(x)

    refs = forwarding.EXCLUSIVE_REFS
    return forwarding.offers(compute, lambda may: forward)


def _relu6(x):
    return np.clip(x, x.dtype.type(0), x.dtype.type(6))


def exp_minus_one_below_zero(x: np.ndarray) -> np.ndarray:
    """TF's ``exp(x) - 1`` where x < 0 and 0 elsewhere (NaN stays NaN), in a new buffer:
    exp(min(x, 0)) - 1 is exactly 0 where x >= 0, so adding max(x, 0) or a scaled x
    selects without a data-dependent select (np.where over a random mask costs 30x an
    arithmetic pass)."""
    e = np.clip(x, -np.inf, 0, out=np.empty(x.shape, x.dtype))
    np.exp(e, out=e)
    e -= 1
    return e


def positive_part(x: np.ndarray) -> np.ndarray:
    """max(x, 0) (NaN stays NaN) in a new buffer: numpy's clip between two scalars runs a
    vector loop, its maximum against a broadcast 0 a scalar one (5x the time)."""
    return np.clip(x, 0, np.inf, out=np.empty(x.shape, x.dtype))


def _elu(x):
    # TF: x < 0 ? exp(x) - 1 : x
    e = exp_minus_one_below_zero(x)
    e += positive_part(x)
    return e


def _elu_grad(g, y):
    # TF: y < 0 ? g * (y + 1) : g (g also where y is NaN, as TF's select takes it)
    f = np.clip(y, -np.inf, 0, out=np.empty(y.shape, y.dtype))
    nan = np.isnan(f)
    if nan.any():
        f[nan] = 0
    f += 1
    f *= g
    return f


def _softplus_threshold(dtype: np.dtype) -> np.floating:
    return dtype.type(np.log(np.finfo(dtype).eps)) + dtype.type(2)


def _softplus(x):
    # TF's functor: x where x > -threshold, exp(x) where x < threshold, else
    # log1p(exp(x)); threshold = log(epsilon) + 2 (-13.94 in float32).  log1p(e) as
    # Eigen's: e * (log(u) / (u - 1)) with u = 1 + e (u != 1 between the thresholds):
    # numpy's log1p and logaddexp are scalar loops, 7x and 6x the time of these passes.
    threshold = _softplus_threshold(x.dtype)
    e = np.exp(x)
    u = np.add(e, 1, out=np.empty(x.shape, x.dtype))
    out = np.log(u)
    u -= 1
    out /= u
    out *= e
    large = np.greater(x, -threshold)
    if large.any():
        np.copyto(out, x, where=large)
    small = np.less(x, threshold)
    if small.any():
        np.copyto(out, e, where=small)
    return out


def _softplus_grad(g, f):
    # TF: g / (exp(-f) + 1)
    e = np.negative(f, out=np.empty(f.shape, f.dtype))
    np.exp(e, out=e)
    e += 1
    return np.divide(g, e, out=e)


register_kernel("Relu6")(_unary(_relu6))
register_kernel("Elu")(_unary(intra_op.elementwise(_elu)))
register_kernel("Softplus")(_unary(intra_op.elementwise(_softplus)))
# As TF's functors: the gradient times the mask (a product, ~10x faster than np.where
# with a data-dependent mask, and NaN gradients stay NaN where the mask is 0, as in TF).
@register_kernel("ReluGrad")
def _relu_grad(ctx: KernelContext):
    compute = _binary(lambda g, f: np.multiply(g, f > 0, dtype=g.dtype))(ctx)
    out = _out_dtype(ctx)
    refs = forwarding.EXCLUSIVE_REFS

    def make(may: tuple[bool, ...]):
        may_g, may_f = may

        def forward(g, f):
            # The mask goes into f's buffer (as 1.0 / 0.0), the product into g's: two
            # plain passes instead of a bool temporary and a mixed-type product.
            g_alone = may_g and getrefcount(g) == refs
            f_alone = may_f and getrefcount(f) == refs
            if g_alone and f_alone and type(g) is np.ndarray and type(f) is np.ndarray \
                    and g.dtype == out and f.dtype == out and out.kind == "f" and \
                    g.shape == f.shape and g.base is None and f.base is None and \
                    g.flags.writeable and f.flags.writeable:
                np.greater(f, 0, out=f)
                return (np.multiply(g, f, out=g),)
            return compute(g, f)

        return forward

    return forwarding.offers(compute, make)


register_kernel("Relu6Grad")(_binary(
    lambda g, f: np.multiply(g, (f > 0) & (f < 6), dtype=g.dtype)))
register_kernel("EluGrad")(_binary(_elu_grad))
register_kernel("SoftplusGrad")(_binary(_softplus_grad))


# -- softmax and cross entropy --------------------------------------------------------------

def _log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def _check_logits(x: np.ndarray) -> None:
    if x.ndim < 1:
        raise _invalid("logits must have >= 1 dimension, got " + _shape_text(x.shape))


@register_kernel("Softmax")
def _softmax_kernel(ctx: KernelContext):
    out = _out_dtype(ctx)
    work = _work_dtype(out)

    def compute(x):
        x = np.asarray(x).astype(work, copy=False)
        _check_logits(x)
        if x.size == 0:
            return (x.astype(out),)
        e = np.subtract(x, np.max(x, axis=-1, keepdims=True))
        np.exp(e, out=e)
        e /= np.sum(e, axis=-1, keepdims=True)
        return (e.astype(out, copy=False),)

    return compute


@register_kernel("LogSoftmax")
def _log_softmax_kernel(ctx: KernelContext):
    out = _out_dtype(ctx)
    work = _work_dtype(out)

    def compute(x):
        x = np.asarray(x).astype(work, copy=False)
        _check_logits(x)
        if x.size == 0:
            return (x.astype(out),)
        return (_log_softmax(x).astype(out, copy=False),)

    return compute


@register_kernel("SoftmaxCrossEntropyWithLogits")
def _xent(ctx: KernelContext):
    out = _out_dtype(ctx)
    work = _work_dtype(out)

    def compute(features, labels):
        features = np.asarray(features).astype(work, copy=False)
        labels = np.asarray(labels).astype(work, copy=False)
        try:
            shape = np.broadcast_shapes(features.shape, labels.shape)
        except ValueError:
            raise _invalid(f"logits and labels must be broadcastable: logits_size="
                           f"{_shape_text(features.shape)} labels_size="
                           f"{_shape_text(labels.shape)}") from None
        if len(shape) != 2:
            raise _invalid("logits and labels must be either 2-dimensional, or broadcasted "
                           "to be 2-dimensional")
        features = np.broadcast_to(features, shape)
        labels = np.broadcast_to(labels, shape)
        if features.size == 0:
            return (np.zeros(shape[:1], out), np.zeros(shape, out))
        # TF's order (xent_op.h): shifted = logits - max; sum = sum(exp(shifted));
        # loss = sum(labels * (log(sum) - shifted)); backprop = exp(shifted) / sum - labels
        shifted = np.subtract(features, np.max(features, axis=-1, keepdims=True))
        backprop = np.exp(shifted)
        total = np.sum(backprop, axis=-1, keepdims=True)
        terms = np.subtract(np.log(total), shifted, out=shifted)
        terms *= labels
        loss = np.sum(terms, axis=-1)
        backprop /= total
        backprop -= labels
        return (loss.astype(out, copy=False), backprop.astype(out, copy=False))

    return compute


@register_kernel("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent(ctx: KernelContext):
    out = _out_dtype(ctx)
    work = _work_dtype(out)
    flat_rows: dict[tuple[int, int], np.ndarray] = {}  # (n, classes) -> row offsets

    def compute(features, labels):
        features = np.asarray(features).astype(work, copy=False)
        labels = np.asarray(labels)
        if features.ndim != 2:
            raise _invalid(f"logits must be 2-D, but got shape {_shape_text(features.shape)}")
        if labels.ndim != 1:
            raise _invalid(f"labels must be 1-D, but got shape {_shape_text(labels.shape)}")
        n, classes = features.shape
        if n != labels.shape[0]:
            raise _invalid(f"logits and labels must have the same first dimension, got "
                           f"logits shape {_shape_text(features.shape)} and labels shape "
                           f"{_shape_text(labels.shape)}")
        if n == 0:
            return (np.zeros((0,), out), np.zeros(features.shape, out))
        if classes == 0:
            raise _invalid(f"Must have at least one class, but got logits shape "
                           f"{_shape_text(features.shape)}")
        # One pass finds a label outside [0, classes): negatives are huge as unsigned.
        unsigned = labels.view(labels.dtype.str.replace("i", "u"))
        if np.maximum.reduce(unsigned) >= classes:
            bad = (labels < 0) | (labels >= classes)
            values = " ".join(str(v) for v in labels.reshape(-1))
            raise _invalid(f"Received a label value of {labels[bad][0]} which is outside the "
                           f"valid range of [0, {classes}).  Label values: {values}")
        # TF's order (sparse_xent_op.h): shifted = logits - max; loss = log(sum(exp(
        # shifted))) - shifted[label]; backprop = exp(shifted) / sum - onehot.
        offsets = flat_rows.get((n, classes))
        if offsets is None:
            if len(flat_rows) > 16:
                flat_rows.clear()
            offsets = flat_rows[(n, classes)] = np.arange(0, n * classes, classes)
        picks = np.add(offsets, labels)
        backprop = np.subtract(features, np.maximum.reduce(features, axis=1, keepdims=True))
        flat = backprop.reshape(-1)
        picked = flat[picks]
        np.exp(backprop, out=backprop)
        total = np.add.reduce(backprop, axis=1, keepdims=True)
        loss = np.subtract(np.log(total).reshape(-1), picked)
        backprop /= total
        flat[picks] -= 1
        return (loss.astype(out, copy=False), backprop.astype(out, copy=False))

    return compute


# -- bias add -------------------------------------------------------------------------------

def _channel_axis(ctx: KernelContext, ndim: int) -> int:
    return 1 if ctx.node_def.attr["data_format"].s == b"NCHW" else ndim - 1


@register_kernel("BiasAdd")
def _bias_add(ctx: KernelContext):
    out = _out_dtype(ctx)
    nchw = ctx.node_def.attr["data_format"].s == b"NCHW"

    def compute(value, bias):
        value, bias = np.asarray(value), np.asarray(bias)
        if value.ndim < 2:
            raise _invalid(f"Input tensor must be at least 2D: {_shape_text(value.shape)}")
        if bias.ndim != 1:
            raise _invalid(f"Biases must be 1D: {_shape_text(bias.shape)}")
        axis = 1 if nchw else value.ndim - 1
        if value.shape[axis] != bias.shape[0]:
            raise _invalid(f"Must provide as many biases as the channel dimension of the input "
                           f"tensor: {_shape_text(bias.shape)} vs. "
                           f"{_shape_text(value.shape)}")
        shape = [1] * value.ndim
        shape[axis] = bias.shape[0]
        return (np.add(value, bias.reshape(shape)).astype(out, copy=False),)

    return compute


@register_kernel("BiasAddGrad")
def _bias_add_grad(ctx: KernelContext):
    out = _out_dtype(ctx)

    def compute(grad):
        grad = np.asarray(grad)
        if grad.ndim < 2:
            raise _invalid(f"Input tensor must be at least 2D: {_shape_text(grad.shape)}")
        axis = _channel_axis(ctx, grad.ndim)
        axes = tuple(i for i in range(grad.ndim) if i != axis)
        work = _work_dtype(out)
        return (np.sum(grad.astype(work, copy=False), axis=axes).astype(out, copy=False),)

    return compute


@register_kernel("L2Loss")
def _l2_loss(ctx: KernelContext):
    out = _out_dtype(ctx)
    work = _work_dtype(out)

    def compute(t):
        t = np.asarray(t).astype(work, copy=False)
        return (np.asarray(np.sum(t * t) / 2, dtype=out),)

    return compute


# -- in_top_k -------------------------------------------------------------------------------

@register_kernel("InTopKV2")
def _in_top_k(ctx: KernelContext):
    del ctx

    def compute(predictions, targets, k):
        predictions, targets = np.asarray(predictions), np.asarray(targets)
        if predictions.ndim != 2:
            raise _invalid(f"predictions must be 2-dimensional, got "
                           f"{_shape_text(predictions.shape)}")
        if targets.ndim != 1 or targets.shape[0] != predictions.shape[0]:
            raise _invalid("First dimension of predictions "
                           f"{predictions.shape[0]} must match length of targets "
                           f"{targets.shape[0] if targets.ndim else 0}")
        n, classes = predictions.shape
        out = np.zeros(n, dtype=bool)
        for b in range(n):
            t = int(targets[b])
            if not 0 <= t < classes:
                continue
            value = predictions[b, t]
            if not np.all(np.isfinite(predictions[b])):
                continue  # TF: any non-finite prediction in the row -> false
            out[b] = int(np.sum(predictions[b] > value)) < int(k)
        return (out,)

    return compute
