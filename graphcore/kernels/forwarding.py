"""Buffer forwarding: a kernel writes its output into an input buffer nobody else holds
(TF's ``OpKernelContext::forward_input_or_allocate_output``).

A kernel offers it by setting ``compute.forwarding = make`` (see :func:`offers`):
``make(may)`` returns a variant of ``compute`` that may write into input ``i`` where
``may[i]`` is true, or None.  The executor asks for a variant only in a cached plan's
straight-line step, and marks an input "may" only where that call is the input's last
reader in the step and the input is not a constant, a fed value, a variable's value, a
folded (memoized) value or a value the step returns.  The variant then writes into the
input only when its own check holds too: a plain ndarray that owns its memory (no view
of another buffer) and whose reference count is that of an array held by nothing but
the step's local and the call's argument (:data:`EXCLUSIVE_REFS`, measured below) --
any other holder (a variable's store, a feed list, a memo, another slot, a view, a
buffer export) shows in the count.  Results are the kernel's own to the bit: numpy's
ufuncs compute the same values into ``out=`` as into a fresh array.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

getrefcount = sys.getrefcount


def _probe_refs(x: Any) -> int:
    return getrefcount(x)


def _calibrate() -> int | None:
    """The reference count a kernel sees on an argument that only the calling step's
    local holds, measured through a generated function as the straight-line step calls
    its kernels; None (never forward) where one more holder would not show in it."""
    names: dict[str, Any] = {"f": _probe_refs, "np": np}
    exec(compile("def step(extra):\n  s0 = np.empty(1)\n  h = s0 if extra else None\n"
                 "  s1 = f(s0)\n  s0 = None\n  return s1\n", "<forwarding probe>", "exec"),
         names)
    alone, held = names["step"](False), names["step"](True)
    return alone if held == alone + 1 else None


EXCLUSIVE_REFS = _calibrate()


def offers(compute: Callable[..., tuple],
           make: Callable[[tuple[bool, ...]], Callable[..., tuple] | None]) -> Callable:
    """Marks ``compute`` as offering forwarding variants made by ``make``; returns it."""
    if EXCLUSIVE_REFS is not None:
        compute.forwarding = make  # type: ignore[attr-defined]
    return compute


def variant(compute: Callable[..., tuple], may: tuple[bool, ...]) -> Callable[..., tuple]:
    """``compute``'s variant for ``may`` (which inputs it may write into), or ``compute``."""
    make = getattr(compute, "forwarding", None)
    if make is None or not any(may):
        return compute
    return make(may) or compute


def binary_ufunc(ufunc: np.ufunc, out: np.dtype, compute: Callable[..., tuple],
                 may: tuple[bool, ...]) -> Callable[..., tuple] | None:
    """The forwarding variant of a broadcasting binary kernel that is ``ufunc(x, y)`` in
    dtype ``out``: the result goes into x (or y) when that input has the result's shape
    and dtype and nobody else holds it; otherwise ``compute`` runs."""
    may_x, may_y = may
    refs = EXCLUSIVE_REFS

    def forward(x, y):
        x_alone = may_x and getrefcount(x) == refs
        y_alone = may_y and getrefcount(y) == refs
        if type(x) is np.ndarray and type(y) is np.ndarray and x.dtype == out and \
                y.dtype == out:
            # (an output that the other input does not broadcast to raises first)
            if x_alone and x.base is None and x.flags.writeable:
                try:
                    return (ufunc(x, y, out=x),)
                except ValueError:
                    pass
            if y_alone and y.base is None and y.flags.writeable:
                try:
                    return (ufunc(x, y, out=y),)
                except ValueError:
                    pass
        return compute(x, y)

    return forward
