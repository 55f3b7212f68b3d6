"""CPU (numpy) kernels of the math ops.

Every kernel returns exactly TF's output dtype and never writes into its inputs (they
may be read-only); runtime errors are TF's InvalidArgumentErrors with TF's messages.
"""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import blas, forwarding, intra_op
from graphcore.kernels.array_kernels import frozen
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _st(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _out(ctx: KernelContext, index: int = 0) -> np.dtype:
    return np.dtype(ctx.output_types[index].base_dtype.as_numpy_dtype)


def _in(ctx: KernelContext, index: int = 0) -> np.dtype:
    return np.dtype(ctx.input_types[index].base_dtype.as_numpy_dtype)


def _is_int(dtype: np.dtype) -> bool:
    return dtype.kind in "iu"


def _is_low_float(dtype: np.dtype) -> bool:
    """half and bfloat16: computed in float32 and rounded once, as Eigen does."""
    return (dtype.kind == "f" and dtype.itemsize < 4) or dtype.name == "bfloat16"


def _incompatible(x, y) -> errors.InvalidArgumentError:
    return _invalid(f"Incompatible shapes: {_st(np.shape(x))} vs. {_st(np.shape(y))}")


def _cast_to(value, dtype: np.dtype):
    value = np.asarray(value)
    return value if value.dtype == dtype else value.astype(dtype)


# -- elementwise binary ----------------------------------------------------------------------

def _binary(fn, check=None, low_float_work: bool = False):
    """A broadcasting binary kernel: ``fn(x, y)``; ``check(x, y)`` may raise first."""

    def factory(ctx: KernelContext):
        out = _out(ctx)
        work = np.dtype(np.float32) if low_float_work and _is_low_float(out) else None

        def compute(x, y):
            if check is not None:
                check(x, y)
            try:
                if work is not None:
                    r = fn(np.asarray(x, work), np.asarray(y, work))
                else:
                    r = fn(x, y)
            except ValueError:
                if np.shape(x) != np.shape(y):
                    try:
                        np.broadcast_shapes(np.shape(x), np.shape(y))
                    except ValueError:
                        raise _incompatible(x, y) from None
                raise
            if getattr(r, "dtype", None) != out:
                r = _cast_to(r, out)
            return (r,)

        if isinstance(fn, np.ufunc) and check is None and work is None:
            return forwarding.offers(
                compute, lambda may: forwarding.binary_ufunc(fn, out, compute, may))
        return compute

    return factory


def _check_int_div(x, y) -> None:
    y = np.asarray(y)
    # TF checks the divisors its output reads: an empty result divides by nothing.
    if y.dtype.kind in "iu" and not np.all(y) and np.size(x) != 0:
        raise _invalid("Integer division by zero")


def _trunc_div(x, y):
    x = np.asarray(x)
    y = np.asarray(y)
    if x.dtype.kind in "iu":
        q = np.floor_divide(x, y)
        if x.dtype.kind == "i":
            # C++ division truncates toward zero: fix up the floor when signs differ.
            adjust = (np.remainder(x, y) != 0) & ((x < 0) != (y < 0))
            q = q + adjust.astype(q.dtype)
        return q
    return np.true_divide(x, y)


def _floor_div(x, y):
    if np.asarray(x).dtype.kind in "iu":
        return np.floor_divide(x, y)
    return np.floor(np.true_divide(x, y))


def _check_int_pow(x, y) -> None:
    y = np.asarray(y)
    if y.dtype.kind == "i" and np.any(y < 0):
        raise _invalid("Integers to negative integer powers are not allowed")


def _squared_difference(x, y):
    d = np.subtract(x, y)
    return d * np.conj(d) if np.iscomplexobj(d) else d * d


def _div_no_nan(x, y):
    y = np.asarray(y)
    zero = y == 0
    q = np.true_divide(x, np.where(zero, np.ones((), y.dtype), y))
    return np.where(zero, np.zeros((), q.dtype), q)


def _bool_out(np_fn):
    def fn(x, y):
        r = np_fn(x, y)
        return r if getattr(r, "dtype", None) == np.bool_ else np.asarray(r, dtype=bool)
    return fn


register_kernel("AddV2")(_binary(np.add))
register_kernel("Add")(_binary(np.add))
register_kernel("Sub")(_binary(np.subtract))
register_kernel("Mul")(_binary(np.multiply))
_REALDIV_TYPES = ["bfloat16", "float16", "float32", "float64", "complex64", "complex128"]
register_kernel("RealDiv", constraints={"T": _REALDIV_TYPES})(_binary(np.true_divide))
register_kernel("Div")(_binary(_trunc_div, check=_check_int_div))
register_kernel("FloorDiv")(_binary(_floor_div, check=_check_int_div))
register_kernel("FloorMod")(_binary(np.mod, check=_check_int_div))
register_kernel("Pow")(_binary(np.power, check=_check_int_pow, low_float_work=True))
def _bound(ufunc: np.ufunc, maximum: bool):
    """numpy's maximum/minimum, or np.clip where one side is a float scalar: numpy runs
    its maximum against a broadcast scalar as a scalar loop, clip between two scalars as a
    vector one (5x faster); the values, NaN included, are the same."""

    def fn(x, y):
        if type(x) is np.ndarray and type(y) is np.ndarray and x.dtype == y.dtype and \
                x.dtype.kind == "f" and (x.ndim == 0) != (y.ndim == 0):
            tensor, scalar = (x, y) if y.ndim == 0 else (y, x)
            return np.clip(tensor, scalar, np.inf) if maximum else \
                np.clip(tensor, -np.inf, scalar)
        return ufunc(x, y)

    return fn


register_kernel("Maximum")(_binary(_bound(np.maximum, True)))
register_kernel("Minimum")(_binary(_bound(np.minimum, False)))
register_kernel("SquaredDifference")(_binary(_squared_difference))
register_kernel("DivNoNan")(_binary(_div_no_nan))
register_kernel("Less")(_binary(_bool_out(np.less)))
register_kernel("LessEqual")(_binary(_bool_out(np.less_equal)))
register_kernel("Greater")(_binary(_bool_out(np.greater)))
register_kernel("GreaterEqual")(_binary(_bool_out(np.greater_equal)))
register_kernel("LogicalAnd")(_binary(np.logical_and))
register_kernel("LogicalOr")(_binary(np.logical_or))
register_kernel("BitwiseAnd")(_binary(np.bitwise_and))
register_kernel("BitwiseOr")(_binary(np.bitwise_or))
register_kernel("BitwiseXor")(_binary(np.bitwise_xor))


def _equality(np_fn, incompatible_value: bool):
    def factory(ctx: KernelContext):
        ise = ctx.node_def.attr["incompatible_shape_error"].b
        inner = _binary(_bool_out(np_fn))(ctx)

        def compute(x, y):
            if not ise and np.shape(x) != np.shape(y):
                try:
                    np.broadcast_shapes(np.shape(x), np.shape(y))
                except ValueError:
                    return (np.asarray(incompatible_value),)
            return inner(x, y)

        return compute

    return factory


register_kernel("Equal")(_equality(np.equal, False))
register_kernel("NotEqual")(_equality(np.not_equal, True))


# -- elementwise unary ---------------------------------------------------------------------

def _unary(fn, low_float_work: bool = False):
    def factory(ctx: KernelContext):
        out = _out(ctx)
        work = np.dtype(np.float32) if low_float_work and _is_low_float(out) else None

        def compute(x):
            r = fn(np.asarray(x, work)) if work is not None else fn(x)
            if getattr(r, "dtype", None) != out:
                r = _cast_to(r, out)
            return (r,)

        return compute

    return factory


# Transcendental kernels split large inputs over the intra-op threads, as TF's cwise
# kernels shard theirs (intra_op.elementwise).
_split = intra_op.elementwise


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def _sigmoid(x):
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    # 1 / (1 + exp(-x)) in four passes over one buffer (a data-dependent select of two
    # stable forms took 6x as long).  Where x < -88 (float32) exp(-x) overflows to inf and
    # the quotient is 0, where TF's value is a denormal (or 0, flushed): the tails agree.
    e = np.negative(x, out=np.empty(x.shape, x.dtype))
    np.exp(e, out=e)
    e += 1
    return np.divide(1, e, out=e)


def _log1p(x):
    x = np.asarray(x)
    if x.dtype.kind != "f" or x.ndim == 0:
        return np.log1p(x)
    # Eigen's log1p (TF's): x * (log(u) / (u - 1)) with u = 1 + x, and x itself where u is
    # 1 (x under half an ulp of 1) or log(u) is u (x = inf).  numpy's log1p is a scalar
    # loop, 5x the time of these vector passes.
    u = np.add(x, 1, out=np.empty(x.shape, x.dtype))
    out = np.log(u)
    keep = np.equal(u, 1)
    keep |= np.equal(out, u)
    u -= 1
    np.divide(out, u, out=out)
    out *= x
    if keep.any():
        np.copyto(out, x, where=keep)
    return out


def _expm1(x):
    x = np.asarray(x)
    if x.dtype.kind != "f" or x.ndim == 0:
        return np.expm1(x)
    # Eigen's expm1 (TF's): (u - 1) * (x / log(u)) with u = exp(x); u where u is inf, -1
    # where u - 1 is -1, x where u is 1.  numpy's expm1 is a scalar loop.
    u = np.exp(x)
    log_u = np.log(u)
    out = np.divide(x, log_u)
    inf = np.equal(log_u, u)
    u_minus_one = np.subtract(u, 1, out=log_u)
    out *= u_minus_one
    if inf.any():
        np.copyto(out, u, where=inf)
    np.copyto(out, -1, where=np.equal(u_minus_one, -1))
    np.copyto(out, x, where=np.equal(u, 1))
    return out


def _sigmoid_grad(y, dy):
    # TF's order: dy * y * (1 - y), left to right.
    r = np.multiply(dy, y)
    r *= np.subtract(1, y)
    return r


register_kernel("LogicalNot")(_unary(np.logical_not))
register_kernel("Invert")(_unary(np.invert))
register_kernel("Neg")(_unary(np.negative))
register_kernel("Abs")(_unary(np.abs))
register_kernel("Sign")(_unary(np.sign))
register_kernel("Square")(_unary(np.square))
register_kernel("Sqrt")(_unary(np.sqrt, True))
register_kernel("Rsqrt")(_unary(_rsqrt, True))
register_kernel("Exp")(_unary(_split(np.exp), True))
register_kernel("Log")(_unary(_split(np.log), True))
register_kernel("Log1p")(_unary(_split(_log1p), True))
register_kernel("Expm1")(_unary(_split(_expm1), True))
register_kernel("Tanh")(_unary(_split(np.tanh), True))
register_kernel("Sigmoid")(_unary(_split(_sigmoid), True))
register_kernel("Conj")(_unary(np.conj))
register_kernel("Floor")(_unary(np.floor))
register_kernel("Ceil")(_unary(np.ceil))
register_kernel("Rint")(_unary(np.rint))
register_kernel("Round")(_unary(np.round))  # half to even, as TF's Round
register_kernel("Cos")(_unary(_split(np.cos), True))
register_kernel("Sin")(_unary(_split(np.sin), True))
register_kernel("Reciprocal")(_unary(np.reciprocal, True))

register_kernel("SqrtGrad")(_binary(lambda y, dy: dy * 0.5 / y, low_float_work=True))
register_kernel("RsqrtGrad")(_binary(lambda y, dy: -0.5 * (dy * np.conj(y)) * (np.conj(y) ** 2),
                                     low_float_work=True))
register_kernel("TanhGrad")(_binary(lambda y, dy: dy * (1 - y * np.conj(y)),
                                    low_float_work=True))
register_kernel("ReciprocalGrad")(_binary(lambda y, dy: -dy * y * np.conj(y),
                                          low_float_work=True))
register_kernel("SigmoidGrad")(_binary(_sigmoid_grad, low_float_work=True))


@register_kernel("Cast")
def _cast(ctx: KernelContext):
    src = _in(ctx)
    dst = _out(ctx)
    src_name = ctx.input_types[0].base_dtype.name
    dst_name = ctx.output_types[0].base_dtype.name
    if (src.kind in "OSU") != (dst.kind in "OSU") or "string" in (src_name, dst_name) and \
            src_name != dst_name:
        message = f"Cast {src_name} to {dst_name} is not supported"

        def fail(x):
            raise errors.UnimplementedError(None, None, message)

        return fail
    to_real = src.kind == "c" and dst.kind != "c"

    def compute(x):
        x = np.asarray(x)
        if to_real:
            x = np.real(x)
        if dst == np.bool_:
            return (x != 0,)
        return (x.astype(dst),)

    return compute


# -- select / add_n ------------------------------------------------------------------------

_BITS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
# Elements from which a select runs bitwise (under it np.where's cost is its call).
SELECT_BITS_MIN = 1024


def select(cond: np.ndarray, t: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``np.where(cond, t, e)``.  For ``t`` and ``e`` of one shape and dtype of 1-8 bytes,
    and a bool ``cond`` that broadcasts to it, a bitwise select, ``e ^ ((t ^ e) & mask)``
    with mask all ones where cond holds: the same bits, ~10x faster than numpy's where over
    a data-dependent mask (it branches per element)."""
    bits = _BITS.get(t.dtype.itemsize)
    if bits is None or type(t) is not np.ndarray or type(e) is not np.ndarray or \
            type(cond) is not np.ndarray or cond.dtype != np.bool_ or t.dtype != e.dtype \
            or t.shape != e.shape or t.size < SELECT_BITS_MIN or t.dtype.kind not in "biufc":
        return np.where(cond, t, e)
    try:
        mask = np.broadcast_to(cond, t.shape)
    except ValueError:
        return np.where(cond, t, e)
    mask = mask.view(np.int8).astype(bits)
    np.negative(mask, out=mask)  # 0 or -1 (all ones)
    e_bits = e.view(bits)
    out = np.bitwise_xor(t.view(bits), e_bits)
    out &= mask
    out ^= e_bits
    return out.view(t.dtype)


@register_kernel("Select")
def _select(ctx: KernelContext):
    del ctx

    def compute(cond, t, e):
        cond = np.asarray(cond)
        t = np.asarray(t)
        e = np.asarray(e)
        if t.shape != e.shape:
            raise _invalid(f"'then' and 'else' must have the same size.  but received: "
                           f"{_st(t.shape)} vs. {_st(e.shape)}")
        if cond.ndim == 0:
            return (t if cond else e,)
        if cond.shape == t.shape:
            return (select(cond, t, e),)
        if cond.ndim == 1 and t.ndim >= 1:
            if cond.shape[0] != t.shape[0]:
                raise _invalid(f"Number of batches of 'then' must match size of 'cond', but "
                               f"saw: {t.shape[0]} vs. {cond.shape[0]}")
            return (select(cond.reshape((-1,) + (1,) * (t.ndim - 1)), t, e),)
        raise _invalid(f"Inputs to operation Select of type Select must have the same size "
                       f"and shape.  Input 0: {_st(cond.shape)} != input 1: {_st(t.shape)}")

    return compute


@register_kernel("SelectV2")
def _select_v2(ctx: KernelContext):
    del ctx

    def compute(cond, t, e):
        try:
            return (select(np.asarray(cond), np.asarray(t), np.asarray(e)),)
        except ValueError:
            raise _invalid(f"condition {_st(np.shape(cond))}, then {_st(np.shape(t))}, and "
                           f"else {_st(np.shape(e))} must be broadcastable") from None

    return compute


@register_kernel("AddN")
def _add_n(ctx: KernelContext):
    out = _out(ctx)

    def compute(*inputs):
        first = np.shape(inputs[0])
        for i, v in enumerate(inputs[1:], 1):
            if np.shape(v) != first:
                raise _invalid(f"Inputs to operation AddN of type AddN must have the same size "
                               f"and shape.  Input 0: {_st(first)} != input {i}: "
                               f"{_st(np.shape(v))}")
        total = np.add(inputs[0], inputs[1]) if len(inputs) > 1 else np.array(inputs[0])
        for v in inputs[2:]:
            total = np.add(total, v)
        return (_cast_to(total, out),)

    return compute


# -- matmul --------------------------------------------------------------------------------

@register_kernel("MatMul")
def _matmul(ctx: KernelContext):
    ta = ctx.node_def.attr["transpose_a"].b
    tb = ctx.node_def.attr["transpose_b"].b
    out = _out(ctx)
    product = blas.matmul_fn(_in(ctx))

    def compute(a, b):
        a = np.asarray(a)
        b = np.asarray(b)
        if a.ndim != b.ndim:
            raise _invalid(f"In[0] and In[1] has different ndims: {_st(a.shape)} vs. "
                           f"{_st(b.shape)}")
        if a.ndim != 2:
            raise _invalid(f"In[0] is not a matrix. Instead it has shape {_st(a.shape)}")
        inner_a = a.shape[0] if ta else a.shape[1]
        inner_b = b.shape[1] if tb else b.shape[0]
        if inner_a != inner_b:
            raise _invalid(f"Matrix size-incompatible: In[0]: {_st(a.shape)}, In[1]: "
                           f"{_st(b.shape)}")
        return (_cast_to(product(a, b, ta, tb), out),)

    return compute


@register_kernel("BatchMatMulV2")
def _batch_matmul(ctx: KernelContext):
    adj_x = ctx.node_def.attr["adj_x"].b
    adj_y = ctx.node_def.attr["adj_y"].b
    out = _out(ctx)
    product = blas.batch_matmul_fn(_in(ctx))

    def compute(x, y):
        x = np.asarray(x)
        y = np.asarray(y)
        for i, m in enumerate((x, y)):
            if m.ndim < 2:
                raise _invalid(f"In[{i}] ndims must be >= 2: {m.ndim}")
        try:
            np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        except ValueError:
            raise _invalid(f"In[0] and In[1] must have compatible batch dimensions: "
                           f"{_st(x.shape)} vs. {_st(y.shape)}") from None
        inner_x = x.shape[-2] if adj_x else x.shape[-1]
        inner_y = y.shape[-1] if adj_y else y.shape[-2]
        if inner_x != inner_y:
            raise _invalid(f"Matrix size-incompatible: In[0]: {_st(x.shape)}, In[1]: "
                           f"{_st(y.shape)}")
        return (_cast_to(product(x, y, adj_x, adj_y), out),)

    return compute


# -- reductions ----------------------------------------------------------------------------

def _reduction_axes(x: np.ndarray, axes) -> tuple:
    rank = x.ndim
    seen: list[int] = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if a < -rank or a >= rank:
            raise _invalid(f"Invalid reduction dimension ({a} for input with {rank} "
                           "dimension(s)")
        a = a + rank if a < 0 else a
        if a in seen:
            raise _invalid(f"Invalid reduction arguments: Axes contains duplicate dimension: "
                           f"{a}")
        seen.append(a)
    return tuple(seen)


def _mean(x: np.ndarray, axes: tuple, keep: bool, out: np.dtype):
    total = np.sum(x, axis=axes, keepdims=keep, dtype=out)
    count = 1
    for a in axes:
        count *= x.shape[a]
    if out.kind in "iu":
        total = np.asarray(total)
        if count == 0:
            return np.zeros_like(total)
        q = np.abs(total) // count if out.kind == "i" else total // count
        return np.where(total < 0, -q, q).astype(out) if out.kind == "i" else q
    return np.true_divide(total, np.asarray(count, dtype=out))


def _extreme(fn, use_min: bool):
    def reduce(x: np.ndarray, axes: tuple, keep: bool, out: np.dtype):
        if x.size == 0:
            if out.kind in "iu":
                info = np.iinfo(out)
                initial = info.max if use_min else info.min
            else:
                initial = np.inf if use_min else -np.inf
            return fn(x, axis=axes, keepdims=keep, initial=initial)
        return fn(x, axis=axes, keepdims=keep)
    return reduce


_REDUCERS = {
    # The ufuncs' own reduce: np.sum/np.prod add a Python wrapper (~5 us) per call.
    "Sum": lambda x, axes, keep, out: np.add.reduce(x, axis=axes, keepdims=keep, dtype=out),
    "Prod": lambda x, axes, keep, out: np.multiply.reduce(x, axis=axes, keepdims=keep,
                                                          dtype=out),
    "Mean": _mean,
    "Max": _extreme(np.max, False),
    "Min": _extreme(np.min, True),
    "All": lambda x, axes, keep, out: np.logical_and.reduce(x, axis=axes, keepdims=keep),
    "Any": lambda x, axes, keep, out: np.logical_or.reduce(x, axis=axes, keepdims=keep),
}


def _reduction(op_type: str):
    reducer = _REDUCERS[op_type]

    def factory(ctx: KernelContext):
        keep = ctx.node_def.attr["keep_dims"].b
        out = _out(ctx)

        # (axes array, input rank, axes) of the last call (see Reshape's).
        last = [(None, None, None)]

        def compute(x, axes):
            x = np.asarray(x)
            seen, rank, ax = last[0]
            if axes is not seen or x.ndim != rank:
                ax = _reduction_axes(x, axes)
                if frozen(axes):
                    last[0] = axes, x.ndim, ax
            if not ax:  # nothing to reduce: the input itself, as TF forwards it
                return (_cast_to(x, out),)
            r = reducer(x, ax, keep, out)
            return (_cast_to(r, out),)

        return compute

    return factory


for _op_type in _REDUCERS:
    register_kernel(_op_type)(_reduction(_op_type))


def _arg(use_min: bool):
    def factory(ctx: KernelContext):
        out = _out(ctx)

        def compute(x, dim):
            x = np.asarray(x)
            dim = np.asarray(dim)
            if dim.ndim != 0:
                raise _invalid(f"dim must be a scalar, but received tensor of shape: "
                               f"{_st(dim.shape)}")
            d = int(dim)
            rank = x.ndim
            if d < -rank or d >= rank:
                raise _invalid(f"Expected dimension in the range [{-rank}, {rank}), but got {d}")
            if d < 0:
                d += rank
            if x.shape[d] == 0:
                raise _invalid(f"Reduction axis {d} is empty in shape {_st(x.shape)}")
            if x.dtype.kind == "f" and np.isnan(x).any():
                # TF's comparison-based scan never picks a NaN over a number.
                x = np.where(np.isnan(x), np.inf if use_min else -np.inf, x)
            r = np.argmin(x, axis=d) if use_min else np.argmax(x, axis=d)
            return (_cast_to(r, out),)

        return compute

    return factory


register_kernel("ArgMax")(_arg(False))
register_kernel("ArgMin")(_arg(True))


# -- range / broadcast args / cumulative ---------------------------------------------------

@register_kernel("Range")
def _range(ctx: KernelContext):
    out = _out(ctx)
    integral = out.kind in "iu"

    def compute(start, limit, delta):
        vals = []
        for name, v in (("start", start), ("limit", limit), ("delta", delta)):
            v = np.asarray(v)
            if not (v.ndim == 0 or (v.ndim == 1 and v.shape[0] == 1)):
                raise _invalid(f"{name} must be a scalar, not shape {_st(v.shape)}")
            vals.append(v.reshape(()).item())
        s, lim, d = vals
        if s > lim and d > 0:
            raise _invalid(f"Requires start <= limit when delta > 0: {s}/{lim}")
        if s < lim and d < 0:
            raise _invalid(f"Requires start >= limit when delta < 0: {s}/{lim}")
        if d == 0:
            raise _invalid(f"Requires delta != 0: {d}")
        if integral:
            size = (abs(int(lim) - int(s)) + abs(int(d)) - 1) // abs(int(d))
            return (np.arange(size, dtype=np.int64).astype(out) * out.type(d) + out.type(s),)
        size = int(np.ceil(abs((lim - s) / d)))
        steps = np.full(size, d, dtype=out)
        if size:
            steps[0] = s
        return (np.cumsum(steps, dtype=out),)

    return compute


@register_kernel("BroadcastGradientArgs")
def _bcast_grad_args(ctx: KernelContext):
    out = _out(ctx)

    def compute(s0, s1):
        a = [int(v) for v in np.asarray(s0).reshape(-1)]
        b = [int(v) for v in np.asarray(s1).reshape(-1)]
        if a == b:
            empty = np.zeros([0], dtype=out)
            return (empty, empty)
        n = max(len(a), len(b))
        pa = [1] * (n - len(a)) + a
        pb = [1] * (n - len(b)) + b
        for x, y in zip(pa, pb):
            if x != y and x != 1 and y != 1:
                raise _invalid(f"Incompatible shapes: {_st(tuple(a))} vs. {_st(tuple(b))}")
        r0 = [i for i, x in enumerate(pa) if x == 1]
        r1 = [i for i, y in enumerate(pb) if y == 1]
        return (np.array(r0, dtype=out), np.array(r1, dtype=out))

    return compute


def _cumulative(np_fn, identity: int):
    def factory(ctx: KernelContext):
        exclusive = ctx.node_def.attr["exclusive"].b
        reverse = ctx.node_def.attr["reverse"].b
        out = _out(ctx)

        def compute(x, axis):
            x = np.asarray(x)
            axis = np.asarray(axis)
            if axis.ndim != 0:
                raise _invalid(f"ScanOp: axis must be a scalar, not {_st(axis.shape)}")
            a = int(axis)
            if a < -x.ndim or a >= x.ndim:
                raise _invalid(f"ScanOp: Expected scan axis in the range [{-x.ndim}, "
                               f"{x.ndim}), but got {a}")
            if reverse:
                x = np.flip(x, a)
            r = np_fn(x, axis=a, dtype=out)
            if exclusive and x.shape[a]:
                first = np.full_like(np.take(r, [0], axis=a), identity)
                r = np.concatenate([first, np.take(r, np.arange(x.shape[a] - 1), axis=a)],
                                   axis=a)
            if reverse:
                r = np.flip(r, a)
            return (np.ascontiguousarray(r, dtype=out),)

        return compute

    return factory


register_kernel("Cumsum")(_cumulative(np.cumsum, 0))
register_kernel("Cumprod")(_cumulative(np.cumprod, 1))


# The factories other op families' elementwise kernels are built from.
unary_kernel = _unary
binary_kernel = _binary


@register_kernel("ClipByValue")
def _clip_by_value(ctx: KernelContext):
    def compute(t, clip_value_min, clip_value_max):
        t = np.asarray(t)
        lo, hi = np.asarray(clip_value_min), np.asarray(clip_value_max)
        for name, bound in (("clip_value_min", lo), ("clip_value_max", hi)):
            if bound.shape not in ((), t.shape):
                raise errors.InvalidArgumentError(
                    None, None, f"{name} and t must have the same shape or {name} must be a "
                                f"scalar. t shape: [{','.join(map(str, t.shape))}] {name} "
                                f"shape: [{','.join(map(str, bound.shape))}]")
        if lo.ndim == 0 and hi.ndim == 0:  # (numpy's vector loop; same values)
            return (np.clip(t, lo, hi).astype(t.dtype, copy=False),)
        return (np.minimum(np.maximum(t, lo), hi).astype(t.dtype, copy=False),)

    return compute
