"""CPU kernels of the printing ops (:mod:`graphcore.ops.logging_ops`): Print writes to
stderr as TF's (``message[data0][data1]...``), StringFormat formats tensors as TF's
print_v2 does, PrintV2 writes to a stream, a log level or a file."""

from __future__ import annotations

import logging
import sys
import threading
import time

import numpy as np

from graphcore.kernels.control_kernels import float_text, summarize_value
from graphcore.kernels.registry import KernelContext, register_kernel


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


@register_kernel("Print")
def _print(ctx: KernelContext):
    message = _text(ctx.attr("message"))
    first_n = ctx.attr("first_n")
    summarize = ctx.attr("summarize")
    lock = threading.Lock()
    count = [0]

    def compute(x, *data):
        with lock:
            if first_n >= 0 and count[0] >= first_n:
                return (x,)
            count[0] += 1
        text = message + "".join(f"[{summarize_value(d, summarize)}]" for d in data)
        print(text, file=sys.stderr, flush=True)
        return (x,)

    return compute


def _element(x) -> str:
    if isinstance(x, bytes):
        return '"' + x.decode(errors="replace") + '"'  # print_v2 quotes strings
    if isinstance(x, np.floating):
        return float_text(x)
    if isinstance(x, np.bool_):
        return "1" if x else "0"
    return str(x)


def format_tensor(value, summarize: int) -> str:
    """A tensor as TF's print_v2 shows it: nested brackets, ``summarize`` elements at
    each end of a dimension and ``...`` between (all of them when ``summarize`` < 0)."""
    a = np.asarray(value)
    if a.ndim == 0:
        return _element(a[()])

    def rows(x, depth: int) -> str:
        n = x.shape[0]
        cut = 0 <= summarize < n and n > 2 * summarize
        idx = list(range(summarize)) + [None] + list(range(n - summarize, n)) if cut \
            else list(range(n))
        if x.ndim == 1:
            return "[" + " ".join("..." if i is None else _element(x[i]) for i in idx) + "]"
        # numpy's layout: a blank line between blocks of 2-D and more
        sep = "\n" * (x.ndim - 1) + " " * (depth + 1)
        return "[" + sep.join("..." if i is None else rows(x[i], depth + 1)
                              for i in idx) + "]"

    return rows(a, 0)


@register_kernel("StringFormat")
def _string_format(ctx: KernelContext):
    template = _text(ctx.attr("template"))
    placeholder = _text(ctx.attr("placeholder"))
    summarize = ctx.attr("summarize")
    pieces = template.split(placeholder)

    def compute(*inputs):
        out = pieces[0]
        for value, piece in zip(inputs, pieces[1:]):
            out += format_tensor(value, summarize) + piece
        return (np.asarray(out.encode(), dtype=object),)

    return compute


@register_kernel("PrintV2")
def _print_v2(ctx: KernelContext):
    stream = _text(ctx.attr("output_stream"))
    end = _text(ctx.attr("end"))
    levels = {"log(info)": logging.INFO, "log(warning)": logging.WARNING,
              "log(error)": logging.ERROR}

    def compute(value):
        text = _text(np.asarray(value, dtype=object).item())
        if stream == "stdout":
            print(text, end=end, file=sys.stdout, flush=True)
        elif stream == "stderr":
            print(text, end=end, file=sys.stderr, flush=True)
        elif stream in levels:
            logging.getLogger("tensorflow").log(levels[stream], text)
        else:
            with open(stream[len("file://"):], "a") as f:
                f.write(text + end)
        return ()

    return compute


@register_kernel("Timestamp")
def _timestamp(ctx: KernelContext):
    del ctx
    return lambda: (np.asarray(time.time(), dtype=np.float64),)
