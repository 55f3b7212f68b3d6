"""CPU kernels of UnicodeTranscode and UnicodeEncode (:mod:`graphcore.ops.unicode_ops`).

Decoding marks each invalid sequence (Python's codecs find the same maximal invalid
subparts as ICU) with a lone surrogate, which no valid decoded text contains; the
``errors`` policy then replaces, drops or rejects the marks, as TF's ICU callbacks do.
"""

from __future__ import annotations

import codecs
import threading

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.lib import unicode_scripts

_MARK = "\ud800"
# The byte spans of the invalid sequences the current thread's decode met, in order.
_spans = threading.local()


def _mark(exc: UnicodeDecodeError) -> tuple[str, int]:
    getattr(_spans, "spans", []).append((exc.start, exc.end))
    return _MARK, exc.end


codecs.register_error("graphcore.unicode_mark", _mark)
_PY_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _codec(name: str) -> str:
    try:
        return codecs.lookup(_PY_CODECS.get(name, name)).name
    except LookupError:
        raise _invalid(f"Could not create converter for input encoding: {name}") from None


def _valid_code_point(c: int) -> bool:
    return 0 <= c <= 0x10FFFF and not 0xD800 <= c <= 0xDFFF


def _apply_errors(chars: list[int], policy: str, replacement: int, bad, message: str) -> str:
    out = []
    for c in chars:
        if bad(c):
            if policy == "strict":
                raise _invalid(message)
            if policy == "replace":
                out.append(chr(replacement))
            continue
        out.append(chr(c))
    return "".join(out)


def _attrs(ctx: KernelContext) -> tuple[str, int, str]:
    policy = ctx.node_def.attr["errors"].s.decode()
    replacement = ctx.node_def.attr["replacement_char"].i
    if policy == "replace" and not _valid_code_point(replacement):
        raise _invalid("replacement_char out of unicode codepoint range")
    return policy, replacement, _codec(ctx.node_def.attr["output_encoding"].s.decode())


@register_kernel("UnicodeTranscode")
def _unicode_transcode(ctx: KernelContext):
    policy, replacement, out_codec = _attrs(ctx)
    in_codec = _codec(ctx.node_def.attr["input_encoding"].s.decode())
    control = ctx.node_def.attr["replace_control_characters"].b
    mark = ord(_MARK)

    def bad(c: int) -> bool:
        return c == mark or (control and c < 0x20)

    def transcode(s: bytes) -> bytes:
        text = bytes(s).decode(in_codec, errors="graphcore.unicode_mark")
        text = _apply_errors([ord(c) for c in text], policy, replacement, bad,
                             "Invalid formatting on input string")
        return text.encode(out_codec)

    def compute(x):
        x = np.asarray(x, dtype=object)
        return (np.array([transcode(s) for s in x.reshape(-1)], dtype=object)
                .reshape(x.shape),)

    return compute


@register_kernel("UnicodeEncode")
def _unicode_encode(ctx: KernelContext):
    policy, replacement, out_codec = _attrs(ctx)

    def compute(input_values, input_splits):
        values = np.asarray(input_values).reshape(-1).tolist()
        splits = np.asarray(input_splits).reshape(-1).tolist()
        if not splits or splits[0] != 0 or any(b < a for a, b in zip(splits, splits[1:])) \
                or splits[-1] != len(values):
            raise _invalid("Invalid splits: the first split must be 0, splits must not "
                           "decrease and the last must equal the number of values")
        out = [_apply_errors(values[a:b], policy, replacement,
                             lambda c: not _valid_code_point(c),
                             "Code point is out of range for Unicode, or is a surrogate.")
               .encode(out_codec) for a, b in zip(splits, splits[1:])]
        return (np.array(out, dtype=object).reshape(len(out)),)

    return compute


def _decode_with_offsets(data: bytes, codec: str) -> tuple[str, list[int]]:
    """The decoded text (invalid sequences marked) and each character's byte offset."""
    _spans.spans = []
    text = data.decode(codec, errors="graphcore.unicode_mark")
    spans, offsets, pos = iter(_spans.spans), [], 0
    for ch in text:
        offsets.append(pos)
        if ch == _MARK:
            start, end = next(spans)
            pos = end
        else:
            pos += len(ch.encode(codec, errors="surrogatepass"))
    return text, offsets


@register_kernel("UnicodeDecode")
@register_kernel("UnicodeDecodeWithOffsets")
def _unicode_decode(ctx: KernelContext):
    policy = ctx.node_def.attr["errors"].s.decode()
    replacement = ctx.node_def.attr["replacement_char"].i
    if policy == "replace" and not _valid_code_point(replacement):
        raise _invalid("replacement_char out of unicode codepoint range")
    in_codec = _codec(ctx.node_def.attr["input_encoding"].s.decode())
    control = ctx.node_def.attr["replace_control_characters"].b
    with_offsets = ctx.op_type == "UnicodeDecodeWithOffsets"
    splits_dtype = ctx.attr("Tsplits").as_numpy_dtype
    mark = ord(_MARK)

    def compute(x):
        splits, chars, starts = [0], [], []
        for s in np.asarray(x, dtype=object).reshape(-1):
            text, offsets = _decode_with_offsets(bytes(s), in_codec)
            for ch, offset in zip(text, offsets):
                c = ord(ch)
                if c == mark or (control and c < 0x20):
                    if policy == "strict":
                        raise _invalid("Invalid formatting on input string")
                    if policy == "ignore":
                        continue
                    c = replacement
                chars.append(c)
                starts.append(offset)
            splits.append(len(chars))
        out = (np.asarray(splits, splits_dtype), np.asarray(chars, np.int32).reshape(-1))
        return out + ((np.asarray(starts, np.int64).reshape(-1),) if with_offsets else ())

    return compute


_SCRIPT_STARTS = np.asarray(unicode_scripts.RANGE_STARTS, np.int64)
_SCRIPT_CODES = np.asarray(unicode_scripts.RANGE_SCRIPTS, np.int32)


@register_kernel("UnicodeScript")
def _unicode_script(ctx: KernelContext):
    del ctx

    def compute(x):
        cp = np.asarray(x, np.int64)
        codes = _SCRIPT_CODES[np.searchsorted(_SCRIPT_STARTS, cp, side="right") - 1]
        return (np.where((cp < 0) | (cp > 0x10FFFF), np.int32(-1), codes).astype(np.int32),)

    return compute
