"""CPU kernels of PyFunc, PyFuncStateless and EagerPyFunc: call the registered Python
function, check its results against ``Tout`` as TF's, and map its exceptions to TF's
error classes."""

from __future__ import annotations

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.ops import script_ops

# Python exception -> TF error class (TF's py_func.cc).
_ERRORS = (
    ((ValueError, TypeError), errors.InvalidArgumentError),
    ((StopIteration,), errors.OutOfRangeError),
    ((MemoryError,), errors.ResourceExhaustedError),
    ((NotImplementedError,), errors.UnimplementedError),
    ((IndexError,), errors.OutOfRangeError),
)


class EagerValue(np.ndarray):
    """An input of ``py_function``: a numpy array with the EagerTensor's ``numpy()``."""

    def numpy(self) -> np.ndarray:
        return np.asarray(self)


def _convert(value):
    result = np.asarray(value, order="C")
    if result.dtype.kind in "SU" and result is not value:
        return np.asarray(value, dtype=object, order="C")
    return result


def _factory(eager: bool):
    def factory(ctx: KernelContext):
        token = ctx.attr("token")
        token = token.decode() if isinstance(token, bytes) else token
        tout = [dtypes_lib.as_dtype(t) for t in ctx.attr("Tout")]
        name = ctx.name

        def compute(*inputs):
            func = script_ops.registry.get(token)
            if func is None:
                raise errors.UnknownError(None, None, f"ValueError: callback {token} is not "
                                          "found (py_func runs only in the process that "
                                          "built it)")
            args = [np.asarray(x).view(EagerValue) for x in inputs] if eager else \
                [np.asarray(x) for x in inputs]
            try:
                ret = func(*args)
            except Exception as e:  # mapped to the TF error class, as TF's kernel does
                cls = next((c for types, c in _ERRORS if isinstance(e, types)),
                           errors.UnknownError)
                raise cls(None, None, f"{type(e).__name__}: {e}\n\t [[{{{{node {name}}}}}]]"
                          ) from e
            if not tout:
                return ()
            values = [_convert(v) for v in ret] if isinstance(ret, (list, tuple)) \
                else [_convert(ret)]
            if len(values) != len(tout):
                raise errors.InvalidArgumentError(
                    None, None, f"{token} returns {len(values)} values, but expects to see "
                                f"{len(tout)} values.")
            out = []
            for i, (v, dtype) in enumerate(zip(values, tout)):
                if dtype == dtypes_lib.string:
                    out.append(np.asarray(v, dtype=object))
                    continue
                if eager:  # py_function converts as EagerTensor results are
                    v = v.astype(dtype.as_numpy_dtype, copy=False)
                if v.dtype != np.dtype(dtype.as_numpy_dtype):
                    raise errors.InvalidArgumentError(
                        None, None, f"{i}-th value returned by {token} is "
                                    f"{dtypes_lib.as_dtype(v.dtype).name}, but expects "
                                    f"{dtype.name}")
                out.append(v)
            return tuple(out)

        return compute

    return factory


register_kernel("PyFunc")(_factory(False))
register_kernel("PyFuncStateless")(_factory(False))
register_kernel("EagerPyFunc")(_factory(True))
