"""CPU kernels of the string ops (:mod:`graphcore.ops.string_ops`). Strings are numpy
object arrays of bytes; regular expressions use Python's ``re`` (RE2's syntax for the
common cases); hash buckets use farmhash's Fingerprint64, TF's."""

from __future__ import annotations

import base64
import re

import farmhash
import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _bytes(x) -> bytes:
    return x if isinstance(x, bytes) else str(x).encode()


def _map(fn, x, out_dtype=object) -> np.ndarray:
    """``fn`` over each string of ``x``, as an array of ``x``'s shape."""
    a = np.asarray(x, dtype=object)
    flat = [fn(_bytes(v)) for v in a.reshape(-1)]
    out = np.empty(len(flat), dtype=out_dtype)
    out[:] = flat
    return out.reshape(a.shape)


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _elementwise(fn, out_dtype=object):
    def factory(ctx: KernelContext):
        del ctx
        return lambda x: (_map(fn, x, out_dtype),)

    return factory


@register_kernel("StringJoin")
def _string_join(ctx: KernelContext):
    separator = _bytes(ctx.attr("separator"))

    def compute(*inputs):
        arrays = [np.asarray(x, dtype=object) for x in inputs]
        shapes = {a.shape for a in arrays if a.ndim}
        if len(shapes) > 1:
            raise _invalid(f"Input shapes do not match: {sorted(shapes)}")
        shape = shapes.pop() if shapes else ()
        cols = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
        joined = [separator.join(_bytes(v) for v in row) for row in zip(*cols)] \
            if cols else []
        out = np.empty(len(joined), dtype=object)
        out[:] = joined
        return (out.reshape(shape),)

    return compute


@register_kernel("Substr")
def _substr(ctx: KernelContext):
    utf8 = _text(ctx.attr("unit")) == "UTF8_CHAR"

    def compute(x, pos, length):
        a = np.asarray(x, dtype=object)
        p = np.broadcast_to(np.asarray(pos), a.shape)
        n = np.broadcast_to(np.asarray(length), a.shape)
        out = np.empty(a.size, dtype=object)
        for i, (s, start, size) in enumerate(zip(a.reshape(-1), p.reshape(-1),
                                                 n.reshape(-1))):
            s = _bytes(s)
            units = s.decode() if utf8 else s
            start = int(start) + (len(units) if start < 0 else 0)
            if not 0 <= start <= len(units):
                raise _invalid(f"pos {int(start)} out of range for string b'{s.decode()}' "
                               f"at index {i}")
            piece = units[start:start + max(int(size), 0)]
            out[i] = piece.encode() if utf8 else piece
        return (out.reshape(a.shape),)

    return compute


@register_kernel("AsString")
def _as_string(ctx: KernelContext):
    precision = ctx.attr("precision")
    scientific = ctx.attr("scientific")
    shortest = ctx.attr("shortest")
    width = ctx.attr("width")
    fill = _text(ctx.attr("fill"))
    dtype = ctx.input_types[0]

    def fmt(v) -> str:
        if dtype.is_floating:
            if shortest:
                spec = "g"
            elif scientific:
                spec = "e"
            else:
                spec = "f"
            prec = f".{precision}" if precision >= 0 else ("" if shortest else ".6")
            text = format(float(v), prec + spec)
        elif dtype.is_bool:
            text = "true" if v else "false"
        elif dtype.is_complex:
            text = f"({v.real:.6f},{v.imag:.6f})"
        else:
            text = str(_text(v) if isinstance(v, bytes) else v)
        if width > 0:
            text = text.rjust(width, fill or " ") if fill != "-" else text.ljust(width)
        return text

    def compute(x):
        a = np.asarray(x)
        out = np.empty(a.size, dtype=object)
        out[:] = [fmt(v).encode() for v in a.reshape(-1)]
        return (out.reshape(a.shape),)

    return compute


@register_kernel("StringToNumber")
def _string_to_number(ctx: KernelContext):
    out = ctx.attr("out_type").as_numpy_dtype
    integral = np.dtype(out).kind in "iu"

    def parse(s: bytes):
        text = s.decode(errors="replace").strip()
        try:
            value = int(text) if integral else float(text)
        except ValueError:
            raise _invalid(f"StringToNumberOp could not correctly convert string: {text}"
                           ) from None
        if integral:
            info = np.iinfo(out)
            if not info.min <= value <= info.max:
                raise _invalid(f"StringToNumberOp could not correctly convert string: {text}")
        return value

    return lambda x: (_map(parse, x, object).astype(out),)


def _rewrite(rewrite: str) -> str:
    # RE2's \0 is the whole match; Python's is \g<0>.
    return re.sub(r"\\0", r"\\g<0>", rewrite)


def _replace(pattern: str, rewrite: str, replace_global: bool):
    regex = re.compile(pattern.encode())
    rw = _rewrite(rewrite).encode()
    count = 0 if replace_global else 1
    return lambda s: regex.sub(rw, s, count=count)


@register_kernel("StaticRegexReplace")
def _static_regex_replace(ctx: KernelContext):
    fn = _replace(_text(ctx.attr("pattern")), _text(ctx.attr("rewrite")),
                  ctx.attr("replace_global"))
    return lambda x: (_map(fn, x),)


@register_kernel("RegexReplace")
def _regex_replace(ctx: KernelContext):
    replace_global = ctx.attr("replace_global")

    def compute(x, pattern, rewrite):
        fn = _replace(_bytes(np.asarray(pattern, dtype=object).item()).decode(),
                      _bytes(np.asarray(rewrite, dtype=object).item()).decode(),
                      replace_global)
        return (_map(fn, x),)

    return compute


@register_kernel("StaticRegexFullMatch")
def _static_full_match(ctx: KernelContext):
    regex = re.compile(_text(ctx.attr("pattern")).encode())
    return lambda x: (_map(lambda s: regex.fullmatch(s) is not None, x, bool),)


@register_kernel("RegexFullMatch")
def _full_match(ctx: KernelContext):
    del ctx

    def compute(x, pattern):
        regex = re.compile(_bytes(np.asarray(pattern, dtype=object).item()))
        return (_map(lambda s: regex.fullmatch(s) is not None, x, bool),)

    return compute


@register_kernel("ReduceJoin")
def _reduce_join(ctx: KernelContext):
    keep = ctx.attr("keep_dims")
    separator = _bytes(ctx.attr("separator"))

    def compute(x, axes):
        a = np.asarray(x, dtype=object)
        axes = [int(v) + (a.ndim if v < 0 else 0) for v in np.asarray(axes).reshape(-1)]
        for ax in axes:
            if not 0 <= ax < max(a.ndim, 1):
                raise _invalid(f"Invalid reduction dimension {ax} for input with {a.ndim} "
                               "dimension(s)")
        keep_axes = [d for d in range(a.ndim) if d not in axes]
        moved = np.transpose(a, keep_axes + sorted(axes))
        lead = moved.shape[:len(keep_axes)]
        rows = moved.reshape(lead + (-1,)) if moved.size else moved.reshape(lead + (0,))
        out = np.empty(int(np.prod(lead)), dtype=object)
        out[:] = [separator.join(_bytes(v) for v in row) for row in rows.reshape(-1,
                                                                                   rows.shape[-1])]
        out = out.reshape(lead)
        if keep:
            out = out.reshape([1 if d in axes else a.shape[d] for d in range(a.ndim)])
        return (out,)

    return compute


@register_kernel("StringLength")
def _string_length(ctx: KernelContext):
    utf8 = _text(ctx.attr("unit")) == "UTF8_CHAR"
    size = (lambda s: len(s.decode())) if utf8 else len
    return lambda x: (_map(size, x, np.int32),)


register_kernel("StringLower")(_elementwise(lambda s: s.lower()))
register_kernel("StringUpper")(_elementwise(lambda s: s.upper()))
register_kernel("StringStrip")(_elementwise(lambda s: s.strip()))


@register_kernel("EncodeBase64")
def _encode_base64(ctx: KernelContext):
    pad = ctx.attr("pad")

    def encode(s: bytes) -> bytes:
        out = base64.urlsafe_b64encode(s)
        return out if pad else out.rstrip(b"=")

    return lambda x: (_map(encode, x),)


def _decode(s: bytes) -> bytes:
    try:
        return base64.urlsafe_b64decode(s + b"=" * (-len(s) % 4))
    except (ValueError, TypeError):
        raise _invalid("Invalid character found in base64.") from None


register_kernel("DecodeBase64")(_elementwise(_decode))


@register_kernel("StringToHashBucketFast")
def _hash_bucket_fast(ctx: KernelContext):
    buckets = ctx.attr("num_buckets")
    return lambda x: (_map(lambda s: farmhash.fingerprint64(s) % buckets, x, np.int64),)
