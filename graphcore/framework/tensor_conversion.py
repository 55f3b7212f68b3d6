"""``convert_to_tensor`` and the registry of conversion functions behind it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework.ops import Operation, Tensor

ConversionFn = Callable[..., Any]

_lock = threading.Lock()
_functions: list[tuple[int, int, type, ConversionFn]] = []  # (priority, order, type, fn)
_cache: dict[type, list[ConversionFn]] = {}


def register_tensor_conversion_function(base_type: type | tuple, conversion_func: ConversionFn,
                                        priority: int = 100) -> None:
    """Registers ``conversion_func(value, dtype=None, name=None, as_ref=False)`` for
    values of ``base_type``; lower priorities are tried first."""
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if any(not isinstance(t, type) for t in types):
        raise TypeError("base_type must be a type or a tuple of types.")
    if not callable(conversion_func):
        raise TypeError("conversion_func must be callable.")
    with _lock:
        for t in types:
            _functions.append((priority, len(_functions), t, conversion_func))
        _functions.sort(key=lambda e: (e[0], e[1]))
        _cache.clear()


def _functions_for(value_type: type) -> list[ConversionFn]:
    fns = _cache.get(value_type)
    if fns is None:
        with _lock:
            fns = [fn for _, _, t, fn in _functions if issubclass(value_type, t)]
            _cache[value_type] = fns
    return fns


def convert_to_tensor(value: Any, dtype: Any = None, name: str | None = None,
                      preferred_dtype: Any = None, as_ref: bool = False,
                      dtype_hint: Any = None) -> Tensor:
    """Converts ``value`` (Tensor, Variable, numpy array, nested lists, Python scalars or
    strings, or a registered type) to a Tensor, with TF's dtype inference and errors."""
    if dtype is not None:
        dtype = dtypes_lib.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with "
                             f"dtype {value.dtype.name}: {value!r}")
        return value
    preferred_dtype = preferred_dtype if preferred_dtype is not None else dtype_hint
    if dtype is None and preferred_dtype is not None:
        preferred = dtypes_lib.as_dtype(preferred_dtype)
        try:
            ret = _convert(value, preferred, name, as_ref)
        except (TypeError, ValueError):
            ret = None
        if ret is not None and ret.dtype.base_dtype == preferred.base_dtype:
            return ret
    return _convert(value, dtype, name, as_ref)


def _convert(value: Any, dtype: dtypes_lib.DType | None, name: str | None,
             as_ref: bool) -> Tensor:
    if isinstance(value, Operation):
        raise TypeError(f"Can't convert Operation '{value.name}' to Tensor (target "
                        f"dtype={dtype}, name={name!r}, as_ref={as_ref})")
    for fn in _functions_for(type(value)):
        ret = fn(value, dtype=dtype, name=name, as_ref=as_ref)
        if ret is NotImplemented:
            continue
        if not isinstance(ret, Tensor):
            raise RuntimeError(f"{fn} returned non-Tensor: {ret!r}")
        if dtype is not None and not dtype.is_compatible_with(ret.dtype):
            raise RuntimeError(f"{fn}: Conversion function returned a Tensor of dtype "
                               f"{ret.dtype.name}, expected {dtype.name}")
        return ret
    raise TypeError(f"Failed to convert object of type {type(value)} to Tensor. Contents: "
                    f"{value!r}. Consider casting elements to a supported type.")


def convert_n_to_tensor(values: list, dtype: Any = None, name: str | None = None,
                        preferred_dtype: Any = None, as_ref: bool = False) -> list[Tensor]:
    """Converts each of ``values``; names them ``name_0``, ``name_1``... when named."""
    return [convert_to_tensor(v, dtype, None if name is None else f"{name}_{i}",
                              preferred_dtype, as_ref) for i, v in enumerate(values)]


def convert_to_tensor_or_indexed_slices(value: Any, dtype: Any = None,
                                        name: str | None = None) -> Any:
    if hasattr(value, "indices") and hasattr(value, "values"):
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)
