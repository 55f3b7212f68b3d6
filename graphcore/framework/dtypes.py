"""Tensor element types: the `DType` class and the `tf.compat.v1`-style instances.

Enum values equal TensorFlow's `DataType` (`DT_FLOAT == 1`, ..., `DT_FLOAT_REF == 101`), so
`as_datatype_enum` can be stored directly in GraphDef / TensorProto messages.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

try:  # Optional: bfloat16 numpy type.
    import ml_dtypes as _ml_dtypes

    _np_bfloat16: Any = _ml_dtypes.bfloat16
except ImportError:  # pragma: no cover - exercised only without ml_dtypes
    _ml_dtypes = None
    _np_bfloat16 = None

__all__ = [
    "DType",
    "as_dtype",
    "QUANTIZED_DTYPES",
    "float16",
    "half",
    "bfloat16",
    "float32",
    "float64",
    "double",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "string",
    "complex64",
    "complex128",
    "qint8",
    "quint8",
    "qint16",
    "quint16",
    "qint32",
    "resource",
    "variant",
]

# Numpy structured types used for the quantized dtypes (as TensorFlow does).
_np_qint8 = np.dtype([("qint8", np.int8)])
_np_quint8 = np.dtype([("quint8", np.uint8)])
_np_qint16 = np.dtype([("qint16", np.int16)])
_np_quint16 = np.dtype([("quint16", np.uint16)])
_np_qint32 = np.dtype([("qint32", np.int32)])
np_resource = np.dtype([("resource", np.ubyte)])

# enum: (name, numpy type, size, kind) where kind is one of
# "f" floating, "i" signed int, "u" unsigned int, "c" complex, "b" bool, "q" quantized,
# "s" string, "o" other (resource / variant).
_BASE_TYPES: dict[int, tuple[str, Any, int, str]] = {
    1: ("float32", np.float32, 4, "f"),
    2: ("float64", np.float64, 8, "f"),
    3: ("int32", np.int32, 4, "i"),
    4: ("uint8", np.uint8, 1, "u"),
    5: ("int16", np.int16, 2, "i"),
    6: ("int8", np.int8, 1, "i"),
    7: ("string", object, 0, "s"),
    8: ("complex64", np.complex64, 8, "c"),
    9: ("int64", np.int64, 8, "i"),
    10: ("bool", np.bool_, 1, "b"),
    11: ("qint8", _np_qint8, 1, "q"),
    12: ("quint8", _np_quint8, 1, "q"),
    13: ("qint32", _np_qint32, 4, "q"),
    14: ("bfloat16", _np_bfloat16, 2, "f"),
    15: ("qint16", _np_qint16, 2, "q"),
    16: ("quint16", _np_quint16, 2, "q"),
    17: ("uint16", np.uint16, 2, "u"),
    18: ("complex128", np.complex128, 16, "c"),
    19: ("float16", np.float16, 2, "f"),
    20: ("resource", None, 0, "o"),
    21: ("variant", None, 0, "o"),
    22: ("uint32", np.uint32, 4, "u"),
    23: ("uint64", np.uint64, 8, "u"),
}

# Integer / float ranges used by `DType.limits` (float ranges are intensity ranges).
_DTYPE_RANGE: dict[Any, tuple[Any, Any]] = {
    np.bool_: (False, True),
    np.uint8: (0, 255),
    np.uint16: (0, 65535),
    np.int8: (-128, 127),
    np.int16: (-32768, 32767),
    np.int64: (-(2**63), 2**63 - 1),
    np.uint64: (0, 2**64 - 1),
    np.int32: (-(2**31), 2**31 - 1),
    np.uint32: (0, 2**32 - 1),
    np.float32: (-1, 1),
    np.float64: (-1, 1),
}


class _Limits(tuple):
    """`(0, max)` intensity limits; also callable as TF1's `limits(clip_negative=True)`."""

    _lo: Any

    def __call__(self, clip_negative: builtins.bool = True) -> tuple[Any, Any]:
        return (0 if clip_negative else self._lo, self[1])


def _make_limits(rng: tuple[Any, Any]) -> _Limits:
    out = _Limits((0, rng[1]))
    out._lo = rng[0]
    return out


_INTERN_TABLE: dict[int, DType] = {}


class DType:
    """The element type of a tensor (`tf.float32`, `tf.int32_ref`, ...).

    Instances are interned per enum value; compare with `==` (which also accepts anything
    `as_dtype` accepts, e.g. `tf.float32 == "float32"` and `tf.float32 == np.float32`).
    """

    __slots__ = ("_type_enum", "_name", "_np", "_size", "_kind", "_is_ref")

    def __init__(self, type_enum: int) -> None:
        type_enum = int(type_enum)
        base = type_enum - 100 if type_enum > 100 else type_enum
        info = _BASE_TYPES.get(base)
        if info is None:
            raise TypeError(f"{type_enum} does not correspond to a valid tensorflow::DataType")
        name, np_type, size, kind = info
        self._type_enum = type_enum
        self._is_ref = type_enum > 100
        self._name = name + "_ref" if self._is_ref else name
        if self._is_ref and np_type is object:
            np_type = np.object_
        self._np = np_type
        self._size = size
        self._kind = kind

    # --- identity -------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The type name, e.g. `"float32"` or `"int32_ref"`."""
        return self._name

    @property
    def as_datatype_enum(self) -> int:
        """The `DataType` enum value (TensorFlow-compatible)."""
        return self._type_enum

    @property
    def _is_ref_dtype(self) -> builtins.bool:
        return self._is_ref

    @property
    def _as_ref(self) -> DType:
        return self if self._is_ref else _INTERN_TABLE[self._type_enum + 100]

    @property
    def base_dtype(self) -> DType:
        """The non-reference `DType` for this type."""
        return _INTERN_TABLE[self._type_enum - 100] if self._is_ref else self

    @property
    def real_dtype(self) -> DType:
        """The `DType` of the real part (float32/float64 for complex types, else self)."""
        if self._kind == "c":
            return float32 if self._size == 8 else float64
        return self

    # --- predicates -----------------------------------------------------------------------
    @property
    def is_floating(self) -> builtins.bool:
        """Whether this is a (non-quantized) floating point type."""
        return self._kind == "f"

    @property
    def is_integer(self) -> builtins.bool:
        """Whether this is a (non-quantized) integer type."""
        return self._kind in ("i", "u")

    @property
    def is_complex(self) -> builtins.bool:
        """Whether this is a complex type."""
        return self._kind == "c"

    @property
    def is_bool(self) -> builtins.bool:
        """Whether this is the boolean type."""
        return self._kind == "b"

    @property
    def is_quantized(self) -> builtins.bool:
        """Whether this is a quantized type."""
        return self._kind == "q"

    @property
    def is_unsigned(self) -> builtins.bool:
        """Whether this is an unsigned integer type."""
        return self._kind == "u"

    @property
    def is_numeric(self) -> builtins.bool:
        """Whether this is a numeric (int, float, complex or quantized) type."""
        return self._kind in ("f", "i", "u", "c", "q")

    @property
    def is_numpy_compatible(self) -> builtins.bool:
        """Whether a numpy type corresponds to this type (False for resource/variant)."""
        return self._np is not None

    # --- numpy ------------------------------------------------------------------------------
    @property
    def as_numpy_dtype(self) -> Any:
        """The numpy type for this `DType` (a structured dtype for quantized types)."""
        if self._np is None:
            if self._kind == "o":
                raise KeyError(self.base_dtype._type_enum)
            raise TypeError(f"{self} has no numpy type (install ml_dtypes for bfloat16).")
        return self._np

    @property
    def size(self) -> int:
        """Size of one element in bytes (0 for string, resource and variant)."""
        return self._size

    @property
    def min(self) -> Any:
        """The minimum representable value (TypeError for non-numeric or quantized types)."""
        return self._extreme("min", "minimum")

    @property
    def max(self) -> Any:
        """The maximum representable value (TypeError for non-numeric or quantized types)."""
        return self._extreme("max", "maximum")

    def _extreme(self, attr: str, word: str) -> Any:
        if self._kind in ("q", "b", "s", "c"):
            what = "quantized type" if self._kind == "q" else "type"
            raise TypeError(f"Cannot find {word} value of {self} with {what} {self.base_dtype}.")
        if self._kind == "f" and self._np is not None:
            info = _ml_dtypes.finfo(self._np) if _ml_dtypes is not None else np.finfo(self._np)
            return getattr(info, attr)
        if self._kind in ("i", "u"):
            return int(getattr(np.iinfo(self._np), attr))
        raise TypeError(f"Cannot find {word} value of {self}.")

    @property
    def limits(self) -> tuple[Any, Any]:
        """Intensity limits `(0, max)`; call it (`limits(clip_negative=False)`) as in TF1."""
        rng = _DTYPE_RANGE.get(self._np) if self._kind != "o" else None
        if rng is None:
            if self._kind == "o":
                raise KeyError(self.base_dtype._type_enum)
            raise ValueError(str(self) + " does not have defined limits.")
        return _make_limits(rng)

    def is_compatible_with(self, other: Any) -> builtins.bool:
        """Whether a tensor of `other` type converts to this type (ref -> base allowed)."""
        other = as_dtype(other)
        return self._type_enum in (other._type_enum, other.base_dtype._type_enum)

    # --- dunder -----------------------------------------------------------------------------
    def __eq__(self, other: object) -> builtins.bool:
        if other is self:
            return True
        if other is None:
            return False
        if type(other) is not DType:
            try:
                other = as_dtype(other)
            except TypeError:
                return False
        return self._type_enum == other._type_enum  # type: ignore[union-attr]

    def __ne__(self, other: object) -> builtins.bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._type_enum

    def __repr__(self) -> str:
        return "tf." + self._name

    def __str__(self) -> str:
        return f"<dtype: {self._name!r}>"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return as_dtype, (self._name,)


def _intern(enum: int) -> DType:
    dt = DType(enum)
    _INTERN_TABLE[enum] = dt
    return dt


resource = _intern(20)
variant = _intern(21)
float16 = _intern(19)
half = float16
bfloat16 = _intern(14)
float32 = _intern(1)
float64 = _intern(2)
double = float64
int8 = _intern(6)
int16 = _intern(5)
int32 = _intern(3)
int64 = _intern(9)
uint8 = _intern(4)
uint16 = _intern(17)
uint32 = _intern(22)
uint64 = _intern(23)
bool = _intern(10)  # noqa: A001 - TensorFlow's public name
string = _intern(7)
complex64 = _intern(8)
complex128 = _intern(18)
qint8 = _intern(11)
quint8 = _intern(12)
qint16 = _intern(15)
quint16 = _intern(16)
qint32 = _intern(13)

resource_ref = _intern(120)
variant_ref = _intern(121)
float16_ref = _intern(119)
half_ref = float16_ref
bfloat16_ref = _intern(114)
float32_ref = _intern(101)
float64_ref = _intern(102)
double_ref = float64_ref
int8_ref = _intern(106)
int16_ref = _intern(105)
int32_ref = _intern(103)
int64_ref = _intern(109)
uint8_ref = _intern(104)
uint16_ref = _intern(117)
uint32_ref = _intern(122)
uint64_ref = _intern(123)
bool_ref = _intern(110)
string_ref = _intern(107)
complex64_ref = _intern(108)
complex128_ref = _intern(118)
qint8_ref = _intern(111)
quint8_ref = _intern(112)
qint16_ref = _intern(115)
quint16_ref = _intern(116)
qint32_ref = _intern(113)

_QUANTIZED_DTYPES_NO_REF = frozenset([qint8, quint8, qint16, quint16, qint32])
_QUANTIZED_DTYPES_REF = frozenset([qint8_ref, quint8_ref, qint16_ref, quint16_ref, qint32_ref])
QUANTIZED_DTYPES = _QUANTIZED_DTYPES_REF.union(_QUANTIZED_DTYPES_NO_REF)

_TYPE_TO_STRING: dict[int, str] = {e: dt.name for e, dt in _INTERN_TABLE.items()}

_STRING_TO_TF: dict[str, DType] = {dt.name: dt for dt in _INTERN_TABLE.values()}
_STRING_TO_TF.update(
    {
        "half": float16,
        "half_ref": float16_ref,
        "float": float32,
        "float_ref": float32_ref,
        "double": float64,
        "double_ref": float64_ref,
    }
)

# Numpy type (or structured dtype, for quantized types) -> DType.
_NP_TO_TF: dict[Any, DType] = {
    np.float16: float16,
    np.float32: float32,
    np.float64: float64,
    np.int32: int32,
    np.int64: int64,
    np.uint8: uint8,
    np.uint16: uint16,
    np.uint32: uint32,
    np.uint64: uint64,
    np.int16: int16,
    np.int8: int8,
    np.complex64: complex64,
    np.complex128: complex128,
    np.object_: string,
    np.bytes_: string,
    np.str_: string,
    np.bool_: bool,
    _np_qint8: qint8,
    _np_quint8: quint8,
    _np_qint16: qint16,
    _np_quint16: quint16,
    _np_qint32: qint32,
}
# Platform aliases that are distinct type objects (e.g. `np.longlong` on Linux).
_SIZED_INT = {np.dtype(t).str[1:]: _NP_TO_TF[t] for t in (np.int8, np.int16, np.int32, np.int64)}
_SIZED_INT.update(
    {np.dtype(t).str[1:]: _NP_TO_TF[t] for t in (np.uint8, np.uint16, np.uint32, np.uint64)}
)
for _t in (np.longlong, np.ulonglong, np.intc, np.uintc, np.short, np.ushort, np.byte, np.ubyte):
    _NP_TO_TF.setdefault(_t, _SIZED_INT[np.dtype(_t).str[1:]])
del _t, _SIZED_INT
if _np_bfloat16 is not None:
    _NP_TO_TF[_np_bfloat16] = bfloat16

# DType enum -> numpy type (numpy-compatible types only).
_TF_TO_NP: dict[int, Any] = {e: dt._np for e, dt in _INTERN_TABLE.items() if dt._np is not None}

_PYTHON_TO_TF: dict[Any, DType] = {
    builtins.float: float32,
    builtins.bool: bool,
    builtins.object: string,
}

# Everything `as_dtype` resolves with a single dict lookup.
_ANY_TO_TF: dict[Any, DType] = {}
_ANY_TO_TF.update(_INTERN_TABLE)
_ANY_TO_TF.update(_STRING_TO_TF)
_ANY_TO_TF.update(_PYTHON_TO_TF)
_ANY_TO_TF.update(_NP_TO_TF)

# Every non-reference `DType`.
TF_VALUE_DTYPES = frozenset(dt for dt in _INTERN_TABLE.values() if not dt._is_ref)


def as_dtype(type_value: Any) -> DType:
    """Converts `type_value` to an interned `DType`.

    Accepts a `DType`, a `DataType` enum value, a type name (`"float32"`, `"float"`,
    `"int32_ref"`, ...), a numpy dtype or type, `float`/`bool`/`object`, or anything with a
    numpy-convertible `dtype` attribute.

    Raises:
      TypeError: if `type_value` cannot be converted.
    """
    if type(type_value) is DType:
        return _INTERN_TABLE[type_value._type_enum]
    if isinstance(type_value, np.dtype):
        found = _NP_TO_TF.get(type_value.type)
        if found is not None:
            return found
    try:
        return _ANY_TO_TF[type_value]
    except (KeyError, TypeError):
        pass
    if isinstance(type_value, DType):
        return _INTERN_TABLE[type_value._type_enum]
    if hasattr(type_value, "dtype"):
        try:
            return _NP_TO_TF[np.dtype(type_value.dtype).type]
        except (KeyError, TypeError):
            pass
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")
