"""CPU (numpy) kernels of the nn ops: activations, softmax, cross entropy, bias add,
conv2d (+ backprops), pooling (+ grads), l2 loss, in_top_k."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import blas
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

    return compute


def _relu6(x):
    return np.minimum(np.maximum(x, np.zeros((), x.dtype)), np.asarray(6, x.dtype))


def _elu(x):
    return np.where(x < 0, np.expm1(np.minimum(x, 0)), x)


def _softplus(x):
    return np.logaddexp(np.zeros((), x.dtype), x)


register_kernel("Relu6")(_unary(_relu6))
register_kernel("Elu")(_unary(_elu))
register_kernel("Softplus")(_unary(_softplus))
# As TF's functors: the gradient times the mask (a product, ~10x faster than np.where
# with a data-dependent mask, and NaN gradients stay NaN where the mask is 0, as in TF).
register_kernel("ReluGrad")(_binary(lambda g, f: np.multiply(g, f > 0, dtype=g.dtype)))
register_kernel("Relu6Grad")(_binary(
    lambda g, f: np.multiply(g, (f > 0) & (f < 6), dtype=g.dtype)))
register_kernel("EluGrad")(_binary(lambda g, y: np.where(y < 0, g * (y + 1), g)))
register_kernel("SoftplusGrad")(_binary(lambda g, f: g / (1 + np.exp(-f))))


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
        e = np.exp(x - np.max(x, axis=-1, keepdims=True))
        return ((e / np.sum(e, axis=-1, keepdims=True)).astype(out, copy=False),)

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
        log_p = _log_softmax(features)
        loss = -np.sum(labels * log_p, axis=-1)
        backprop = np.exp(log_p) - labels
        return (loss.astype(out, copy=False), backprop.astype(out, copy=False))

    return compute


@register_kernel("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent(ctx: KernelContext):
    out = _out_dtype(ctx)
    work = _work_dtype(out)

    def compute(features, labels):
        features = np.asarray(features).astype(work, copy=False)
        labels = np.asarray(labels)
        if features.ndim != 2:
            raise _invalid(f"logits must be 2-D, but got shape {_shape_text(features.shape)}")
        if labels.ndim != 1:
            raise _invalid(f"labels must be 1-D, but got shape {_shape_text(labels.shape)}")
        if features.shape[0] != labels.shape[0]:
            raise _invalid(f"logits and labels must have the same first dimension, got "
                           f"logits shape {_shape_text(features.shape)} and labels shape "
                           f"{_shape_text(labels.shape)}")
        n, classes = features.shape
        if n and classes == 0:
            raise _invalid(f"Must have at least one class, but got logits shape "
                           f"{_shape_text(features.shape)}")
        bad = (labels < 0) | (labels >= classes)
        if bad.any():
            first = labels[bad][0]
            values = " ".join(str(v) for v in labels.reshape(-1))
            raise _invalid(f"Received a label value of {first} which is outside the valid "
                           f"range of [0, {classes}).  Label values: {values}")
        if n == 0:
            return (np.zeros((0,), out), np.zeros(features.shape, out))
        log_p = _log_softmax(features)
        rows = np.arange(n)
        loss = -log_p[rows, labels]
        backprop = np.exp(log_p)
        backprop[rows, labels] -= 1
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


# -- convolution ----------------------------------------------------------------------------

def _cdiv(a: int, b: int) -> int:
    return a // b if a >= 0 else -(-a // b)


class _Geometry:
    """Spatial geometry of one conv / pool: sizes, strides, dilations, paddings."""

    def __init__(self, in_hw: tuple[int, int], k_hw: tuple[int, int], strides: tuple,
                 dilations: tuple, padding: str, explicit: tuple = ()):
        self.h, self.w = in_hw
        self.kh, self.kw = k_hw
        self.sh, self.sw = strides
        self.dh, self.dw = dilations
        if min(self.sh, self.sw) <= 0:
            raise _invalid(f"Stride must be > 0, but got {min(self.sh, self.sw)}")
        pads = []
        outs = []
        for size, k, s, d, exp in ((self.h, self.kh, self.sh, self.dh, explicit[0:2]),
                                   (self.w, self.kw, self.sw, self.dw, explicit[2:4])):
            eff = (k - 1) * d + 1
            if padding == "VALID":
                out = _cdiv(size - eff + s, s)
                pad = (0, 0)
            elif padding == "SAME":
                out = (size + s - 1) // s
                needed = max(0, (out - 1) * s + eff - size)
                pad = (needed // 2, needed - needed // 2)
            else:
                pad = (int(exp[0]), int(exp[1]))
                out = _cdiv(size + pad[0] + pad[1] - eff + s, s)
            if out < 0:
                raise _invalid(f"Computed output size would be negative: {out} [input_size: "
                               f"{size}, effective_filter_size: {eff}, stride: {s}]")
            outs.append(out)
            pads.append(pad)
        self.oh, self.ow = outs
        self.pad_h, self.pad_w = pads

    def padded(self, x: np.ndarray, fill: float = 0) -> np.ndarray:
        """``x`` (NHWC) padded to cover every window (extra rows at the end as needed)."""
        need_h = max(0, (self.oh - 1) * self.sh + (self.kh - 1) * self.dh + 1)
        need_w = max(0, (self.ow - 1) * self.sw + (self.kw - 1) * self.dw + 1)
        top, left = self.pad_h[0], self.pad_w[0]
        bottom = max(self.pad_h[1], need_h - top - self.h)
        right = max(self.pad_w[1], need_w - left - self.w)
        return np.pad(x, ((0, 0), (top, max(bottom, 0)), (left, max(right, 0)), (0, 0)),
                      constant_values=fill)

    def window(self, i: int, j: int) -> tuple[slice, slice]:
        """The (rows, cols) slices of the padded input that kernel tap (i, j) reads."""
        r0, c0 = i * self.dh, j * self.dw
        return (slice(r0, r0 + (self.oh - 1) * self.sh + 1, self.sh),
                slice(c0, c0 + (self.ow - 1) * self.sw + 1, self.sw))

    def crop(self, xp: np.ndarray) -> np.ndarray:
        top, left = self.pad_h[0], self.pad_w[0]
        return xp[:, top:top + self.h, left:left + self.w, :]


def _windows(geo: _Geometry):
    """(i, j, rows, cols) of each filter tap: the padded input's rows and columns that
    tap (i, j) reads for every output position."""
    for i in range(geo.kh):
        for j in range(geo.kw):
            rows, cols = geo.window(i, j)
            yield i, j, rows, cols


def _int_tuple(value: object) -> tuple:
    return tuple(int(v) for v in np.asarray(value).reshape(-1))


def _to_nhwc(x: np.ndarray, nchw: bool) -> np.ndarray:
    return np.transpose(x, (0, 2, 3, 1)) if nchw else x


def _from_nhwc(x: np.ndarray, nchw: bool) -> np.ndarray:
    return np.transpose(x, (0, 3, 1, 2)) if nchw else x


class _ConvAttrs:
    def __init__(self, ctx: KernelContext):
        attr = ctx.node_def.attr
        self.nchw = attr["data_format"].s == b"NCHW"
        strides = list(attr["strides"].list.i)
        dilations = list(attr["dilations"].list.i)
        if len(strides) != 4:
            raise _invalid("Sliding window strides field must specify 4 dimensions")
        if len(dilations) != 4:
            raise _invalid("Sliding window dilations field must specify 4 dimensions")
        n_i, c_i = (0, 1) if self.nchw else (0, 3)
        if strides[n_i] != 1 or strides[c_i] != 1:
            raise _invalid("Current implementation does not yet support strides in the "
                           "batch and depth dimensions.")
        if dilations[n_i] != 1 or dilations[c_i] != 1:
            raise _invalid("Current implementation does not yet support dilations in the "
                           "batch and depth dimensions.")
        if min(dilations) < 1:
            raise _invalid("Dilated rates should be larger than 0.")
        sp = (2, 3) if self.nchw else (1, 2)
        self.strides = (strides[sp[0]], strides[sp[1]])
        self.dilations = (dilations[sp[0]], dilations[sp[1]])
        self.padding = attr["padding"].s.decode()
        explicit = list(attr["explicit_paddings"].list.i) if "explicit_paddings" in attr \
            else []
        self.explicit = tuple(explicit[sp[0] * 2:sp[0] * 2 + 2] + explicit[sp[1] * 2:
                                                                              sp[1] * 2 + 2])

    def geometry(self, x_shape: tuple, k_hw: tuple) -> _Geometry:
        return _Geometry((x_shape[1], x_shape[2]), k_hw, self.strides, self.dilations,
                         self.padding, self.explicit)


def conv2d_forward(x: np.ndarray, w: np.ndarray, geo: _Geometry) -> np.ndarray:
    """NHWC conv of x [N,H,W,C] with w [KH,KW,C,CO] (im2col + one matmul)."""
    n = x.shape[0]
    kh, kw, c, co = w.shape
    xp = geo.padded(x)
    if geo.oh == 0 or geo.ow == 0 or n == 0:
        return np.zeros((n, geo.oh, geo.ow, co), dtype=np.result_type(x, w))
    cols = np.empty((n, geo.oh, geo.ow, kh, kw, c), dtype=np.result_type(x, w))
    for i, j, rows, cs in _windows(geo):
        cols[:, :, :, i, j, :] = xp[:, rows, cs, :]
    out = blas.matmul(cols.reshape(-1, kh * kw * c), w.reshape(kh * kw * c, co))
    return out.reshape(n, geo.oh, geo.ow, co)


def conv2d_input_grad(in_shape: tuple, w: np.ndarray, grad: np.ndarray,
                      geo: _Geometry) -> np.ndarray:
    xp = geo.padded(np.zeros(in_shape, dtype=np.result_type(w, grad)))
    g2 = grad.reshape(-1, grad.shape[-1])
    for i, j, rows, cs in _windows(geo):
        xp[:, rows, cs, :] += blas.matmul(g2, w[i, j], transpose_b=True).reshape(
            grad.shape[:-1] + (w.shape[2],))
    return geo.crop(xp)


def conv2d_filter_grad(x: np.ndarray, w_shape: tuple, grad: np.ndarray,
                       geo: _Geometry) -> np.ndarray:
    c, co = w_shape[2], w_shape[3]
    xp = geo.padded(x)
    dw = np.zeros(w_shape, dtype=np.result_type(x, grad))
    g2 = grad.reshape(-1, co)
    for i, j, rows, cs in _windows(geo):
        dw[i, j] = blas.matmul(xp[:, rows, cs, :].reshape(-1, c), g2, transpose_a=True)
    return dw


def _check_rank4(x: np.ndarray, what: str) -> None:
    if x.ndim != 4:
        raise _invalid(f"{what} must be 4-dimensional{_shape_text(x.shape)}")


@register_kernel("Conv2D")
def _conv2d(ctx: KernelContext):
    attrs = _ConvAttrs(ctx)
    out = _out_dtype(ctx)
    work = _work_dtype(out)

    def compute(x, w):
        x, w = np.asarray(x), np.asarray(w)
        _check_rank4(x, "input")
        _check_rank4(w, "filter")
        x = _to_nhwc(x, attrs.nchw).astype(work, copy=False)
        if x.shape[3] != w.shape[2]:
            if w.shape[2] == 0 or x.shape[3] % w.shape[2]:
                raise _invalid(f"input depth must be evenly divisible by filter depth: "
                               f"{x.shape[3]} vs {w.shape[2]}")
            raise errors.UnimplementedError(
                None, None, "Grouped convolutions are not supported on CPU")
        geo = attrs.geometry(x.shape, w.shape[:2])
        y = conv2d_forward(x, w.astype(work, copy=False), geo)
        return (_from_nhwc(y, attrs.nchw).astype(out, copy=False),)

    return compute


def _sizes(value: object, like: tuple, what: str) -> tuple:
    sizes = _int_tuple(value)
    if len(sizes) == 2:  # [height, width]
        return (like[0], sizes[0], sizes[1], like[1])
    if len(sizes) != 4:
        raise _invalid(f"{what} must be 4-dimensional, got {len(sizes)}")
    return sizes


@register_kernel("Conv2DBackpropInput")
def _conv2d_backprop_input(ctx: KernelContext):
    attrs = _ConvAttrs(ctx)
    out = _out_dtype(ctx)
    work = _work_dtype(out)

    def compute(input_sizes, w, grad):
        w, grad = np.asarray(w).astype(work, copy=False), np.asarray(grad)
        grad = _to_nhwc(grad, attrs.nchw).astype(work, copy=False)
        sizes = _sizes(input_sizes, (grad.shape[0], w.shape[2]), "input_sizes")
        in_shape = (sizes[0], sizes[2], sizes[3], sizes[1]) if attrs.nchw and \
            np.asarray(input_sizes).size == 4 else sizes
        geo = attrs.geometry(in_shape, w.shape[:2])
        if (geo.oh, geo.ow) != grad.shape[1:3] or grad.shape[3] != w.shape[3]:
            raise _invalid(f"Conv2DCustomBackpropInput: Size of out_backprop doesn't match "
                           f"computed: actual = {grad.shape[1:3]}, computed = "
                           f"{(geo.oh, geo.ow)}")
        dx = conv2d_input_grad(in_shape, w, grad, geo)
        return (_from_nhwc(dx, attrs.nchw).astype(out, copy=False),)

    return compute


@register_kernel("Conv2DBackpropFilter")
def _conv2d_backprop_filter(ctx: KernelContext):
    attrs = _ConvAttrs(ctx)
    out = _out_dtype(ctx)
    work = _work_dtype(out)

    def compute(x, filter_sizes, grad):
        x = _to_nhwc(np.asarray(x), attrs.nchw).astype(work, copy=False)
        grad = _to_nhwc(np.asarray(grad), attrs.nchw).astype(work, copy=False)
        w_shape = _int_tuple(filter_sizes)
        if len(w_shape) != 4:
            raise _invalid(f"filter_sizes must be 4-dimensional, got {len(w_shape)}")
        geo = attrs.geometry(x.shape, w_shape[:2])
        if (geo.oh, geo.ow) != grad.shape[1:3]:
            raise _invalid(f"Conv2DCustomBackpropFilter: Size of out_backprop doesn't match "
                           f"computed: actual = {grad.shape[1:3]}, computed = "
                           f"{(geo.oh, geo.ow)}")
        return (conv2d_filter_grad(x, w_shape, grad, geo).astype(out, copy=False),)

    return compute


# -- pooling --------------------------------------------------------------------------------

class _PoolAttrs:
    def __init__(self, ctx: KernelContext):
        attr = ctx.node_def.attr
        self.nchw = attr["data_format"].s == b"NCHW"
        ksize, strides = list(attr["ksize"].list.i), list(attr["strides"].list.i)
        if len(ksize) != 4 or len(strides) != 4:
            raise _invalid("Sliding window ksize and strides fields must specify 4 "
                           "dimensions")
        n_i, c_i = (0, 1) if self.nchw else (0, 3)
        if ksize[n_i] != 1 or strides[n_i] != 1:
            raise _invalid("Pooling is not yet supported on the batch dimension.")
        if ksize[c_i] != 1 or strides[c_i] != 1:
            raise errors.UnimplementedError(
                None, None, "Depthwise pooling is not supported by this implementation.")
        sp = (2, 3) if self.nchw else (1, 2)
        self.k = (ksize[sp[0]], ksize[sp[1]])
        self.strides = (strides[sp[0]], strides[sp[1]])
        self.padding = attr["padding"].s.decode()
        explicit = list(attr["explicit_paddings"].list.i) if "explicit_paddings" in attr \
            else []
        self.explicit = tuple(explicit[sp[0] * 2:sp[0] * 2 + 2] + explicit[sp[1] * 2:
                                                                              sp[1] * 2 + 2])

    def geometry(self, x_shape: tuple) -> _Geometry:
        return _Geometry((x_shape[1], x_shape[2]), self.k, self.strides, (1, 1), self.padding,
                         self.explicit)


def _check_pool_grad(grad: np.ndarray, in_shape: tuple, geo: _Geometry) -> None:
    want = (in_shape[0], geo.oh, geo.ow, in_shape[3])
    if grad.shape != want:
        raise _invalid(f"Expected grad shape to be {_shape_text(want)}, but got "
                       f"{_shape_text(grad.shape)}")


def _lowest(dtype: np.dtype) -> object:
    dtype = np.dtype(dtype)
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def max_pool_forward(x: np.ndarray, geo: _Geometry) -> tuple[np.ndarray, np.ndarray,
                                                              np.ndarray]:
    """(max values, row taps, col taps) of each window (first maximum wins)."""
    xp = geo.padded(x, fill=_lowest(x.dtype))
    n, c = x.shape[0], x.shape[3]
    best = np.full((n, geo.oh, geo.ow, c), _lowest(x.dtype), dtype=x.dtype)
    bi = np.zeros(best.shape, dtype=np.int64)
    bj = np.zeros(best.shape, dtype=np.int64)
    first = True
    for i, j, rows, cols in _windows(geo):
        patch = xp[:, rows, cols, :]
        if first:
            best[...] = patch
            first = False
            continue
        take = patch > best
        best = np.where(take, patch, best)
        bi[take] = i
        bj[take] = j
    return best, bi, bj


def _window_counts(geo: _Geometry) -> np.ndarray:
    ones = geo.padded(np.ones((1, geo.h, geo.w, 1), dtype=np.float64))
    count = np.zeros((1, geo.oh, geo.ow, 1))
    for _, _, rows, cols in _windows(geo):
        count += ones[:, rows, cols, :]
    return count


@register_kernel("MaxPool")
def _max_pool(ctx: KernelContext):
    attrs = _PoolAttrs(ctx)
    out = _out_dtype(ctx)

    def compute(x):
        x = np.asarray(x)
        _check_rank4(x, "input")
        x = _to_nhwc(x, attrs.nchw)
        geo = attrs.geometry(x.shape)
        if 0 in (geo.oh, geo.ow) or x.size == 0:
            y = np.zeros((x.shape[0], geo.oh, geo.ow, x.shape[3]), dtype=out)
        else:
            y = max_pool_forward(x, geo)[0]
        return (_from_nhwc(y, attrs.nchw).astype(out, copy=False),)

    return compute


@register_kernel("AvgPool")
def _avg_pool(ctx: KernelContext):
    attrs = _PoolAttrs(ctx)
    out = _out_dtype(ctx)
    work = _work_dtype(out)

    def compute(x):
        x = np.asarray(x)
        _check_rank4(x, "input")
        x = _to_nhwc(x, attrs.nchw).astype(work, copy=False)
        geo = attrs.geometry(x.shape)
        xp = geo.padded(x)
        total = np.zeros((x.shape[0], geo.oh, geo.ow, x.shape[3]), dtype=work)
        for _, _, rows, cols in _windows(geo):
            total += xp[:, rows, cols, :]
        y = total / _window_counts(geo).astype(work)
        return (_from_nhwc(y, attrs.nchw).astype(out, copy=False),)

    return compute


@register_kernel("MaxPoolGrad")
def _max_pool_grad(ctx: KernelContext):
    attrs = _PoolAttrs(ctx)
    out = _out_dtype(ctx)
    work = _work_dtype(out)

    def compute(orig_input, orig_output, grad):
        x = _to_nhwc(np.asarray(orig_input), attrs.nchw)
        grad = _to_nhwc(np.asarray(grad), attrs.nchw).astype(work, copy=False)
        _check_rank4(x, "orig_input")
        geo = attrs.geometry(x.shape)
        _check_pool_grad(grad, x.shape, geo)
        dx = np.zeros(x.shape, dtype=work)
        if grad.size:
            _, bi, bj = max_pool_forward(x, geo)
            n, oh, ow, c = np.indices(grad.shape, sparse=True)
            rows = oh * geo.sh + bi - geo.pad_h[0]
            cols = ow * geo.sw + bj - geo.pad_w[0]
            idx = np.broadcast_arrays(n, rows, cols, c)
            np.add.at(dx, tuple(idx), grad)
        return (_from_nhwc(dx, attrs.nchw).astype(out, copy=False),)

    return compute


@register_kernel("AvgPoolGrad")
def _avg_pool_grad(ctx: KernelContext):
    attrs = _PoolAttrs(ctx)
    out = _out_dtype(ctx)
    work = _work_dtype(out)

    def compute(orig_input_shape, grad):
        shape = _int_tuple(orig_input_shape)
        if len(shape) != 4:
            raise _invalid(f"orig_input_shape must have 4 elements, got {len(shape)}")
        if attrs.nchw:
            shape = (shape[0], shape[2], shape[3], shape[1])
        grad = _to_nhwc(np.asarray(grad), attrs.nchw).astype(work, copy=False)
        geo = attrs.geometry(shape)
        _check_pool_grad(grad, shape, geo)
        xp = geo.padded(np.zeros(shape, dtype=work))
        g = grad / _window_counts(geo).astype(work)
        for _, _, rows, cols in _windows(geo):
            xp[:, rows, cols, :] += g
        return (_from_nhwc(geo.crop(xp), attrs.nchw).astype(out, copy=False),)

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
