"""TensorFlow-compatible error codes and exception classes (``tf.errors``).

Errors pickle (they cross Ray process boundaries): the failing op, which holds a
reference to its graph, is replaced on pickling by a small snapshot carrying its
``name``, ``type``, ``traceback`` and ``_original_op`` chain, so ``str(error)``
still shows where the op was created.
"""

from __future__ import annotations

import traceback as _traceback
import warnings
from typing import Any

__all__ = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError", "PermissionDeniedError",
    "UnauthenticatedError", "ResourceExhaustedError", "FailedPreconditionError",
    "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError",
    "UnavailableError", "DataLossError",
    "exception_type_from_error_code", "error_code_from_exception_type",
]

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


def _frames(op: Any) -> list[tuple[Any, ...]]:
    return [tuple(frame) for frame in (getattr(op, "traceback", None) or [])]


class _OpSnapshot:
    """Picklable stand-in for an op: name, type, creation traceback, original op."""

    __slots__ = ("name", "type", "traceback", "_original_op")

    def __init__(self, name: Any, type: Any, traceback: Any, original_op: Any) -> None:
        self.name = name
        self.type = type
        self.traceback = traceback
        self._original_op = original_op

    @classmethod
    def of(cls, op: Any) -> _OpSnapshot | None:
        if op is None or isinstance(op, _OpSnapshot):
            return op
        has_tb = hasattr(op, "traceback")
        return cls(
            getattr(op, "name", None),
            getattr(op, "type", None),
            _frames(op) if has_tb else None,
            cls.of(getattr(op, "_original_op", None)),
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return _OpSnapshot, (self.name, self.type, self.traceback, self._original_op)

    def __repr__(self) -> str:
        return f"<op snapshot {self.name!r} type={self.type!r}>"


def _rebuild_op_error(
    cls: type[OpError], node_def: Any, op: Any, message: str, error_code: int, payloads: Any
) -> OpError:
    exc = cls.__new__(cls)
    OpError.__init__(exc, node_def, op, message, error_code, payloads)
    return exc


class OpError(Exception):
    """Base class for errors raised while running (or building) graph ops.

    Args:
      node_def: the ``NodeDef`` of the failing op, if known.
      op: the failing ``Operation``, if known.
      message: the error message.
      error_code: one of the integer codes in this module.
      *args: optionally, a dict of experimental payloads.
    """

    def __init__(self, node_def: Any, op: Any, message: str, error_code: int, *args: Any) -> None:
        super().__init__()
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code
        self._experimental_payloads = args[0] if args else {}

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild_op_error, (
            type(self),
            self._node_def,
            _OpSnapshot.of(self._op),
            self._message,
            self._error_code,
            self._experimental_payloads,
        )

    @property
    def message(self) -> str:
        """The error message."""
        return self._message

    @property
    def op(self) -> Any:
        """The failing op, or None (a snapshot after unpickling)."""
        return self._op

    @property
    def error_code(self) -> int:
        """The integer error code."""
        return self._error_code

    @property
    def node_def(self) -> Any:
        """The ``NodeDef`` of the failing op, or None."""
        return self._node_def

    @property
    def experimental_payloads(self) -> Any:
        """A dict of extra details (empty by default)."""
        return self._experimental_payloads

    def __str__(self) -> str:
        op = self._op
        if op is None or getattr(op, "traceback", None) is None:
            return str(self._message)
        out = [f"{self._message}\n\nCaused by op {op.name!r}, defined at:\n"]
        current = _traceback.format_list(_frames(op))
        out.extend(current)
        original = getattr(op, "_original_op", None)
        while original is not None:
            out.append(
                f"\n...which was originally created as op {original.name!r}, defined at:\n"
            )
            previous, current = current, _traceback.format_list(_frames(original))
            out.extend(_elide_common(current, previous))
            original = getattr(original, "_original_op", None)
        out.append(f"\n{type(self).__name__} (see above for traceback): {self._message}\n")
        return "".join(out)


def _elide_common(current: list[str], previous: list[str]) -> list[str]:
    """Collapse runs of lines identical (position-wise) to the previous traceback."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            out.append(run[0])
            if len(run) > 2:
                out.append(f"[elided {len(run) - 2} identical lines from previous traceback]\n")
            if len(run) > 1:
                out.append(run[-1])
            run.clear()

    for i, line in enumerate(current):
        if i < len(previous) and line == previous[i]:
            run.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return out


class CancelledError(OpError):
    """An operation or step was cancelled."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, CANCELLED, *args)


class UnknownError(OpError):
    """Unknown error."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, UNKNOWN, *args)


class InvalidArgumentError(OpError):
    """An op received an invalid argument."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, INVALID_ARGUMENT, *args)


class DeadlineExceededError(OpError):
    """A deadline expired before the operation could complete."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, DEADLINE_EXCEEDED, *args)


class NotFoundError(OpError):
    """A requested entity (e.g. a file) was not found."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, NOT_FOUND, *args)


class AlreadyExistsError(OpError):
    """An entity we attempted to create already exists."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, ALREADY_EXISTS, *args)


class PermissionDeniedError(OpError):
    """The caller lacks permission to run the operation."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, PERMISSION_DENIED, *args)


class UnauthenticatedError(OpError):
    """The request lacks valid authentication credentials."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, UNAUTHENTICATED, *args)


class ResourceExhaustedError(OpError):
    """Some resource (memory, quota, ...) has been exhausted."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, RESOURCE_EXHAUSTED, *args)


class FailedPreconditionError(OpError):
    """The system is not in a state required for the operation (e.g. uninitialized)."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, FAILED_PRECONDITION, *args)


class AbortedError(OpError):
    """The operation was aborted, typically due to a concurrent action."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, ABORTED, *args)


class OutOfRangeError(OpError):
    """An operation iterated past the valid range (e.g. an exhausted queue)."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, OUT_OF_RANGE, *args)


class UnimplementedError(OpError):
    """The operation is not implemented or supported."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, UNIMPLEMENTED, *args)


class InternalError(OpError):
    """An internal invariant was broken."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, INTERNAL, *args)


class UnavailableError(OpError):
    """The runtime is currently unavailable."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, UNAVAILABLE, *args)


class DataLossError(OpError):
    """Unrecoverable data loss or corruption."""

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(node_def, op, message, DATA_LOSS, *args)


_CODE_TO_EXCEPTION_CLASS: dict[int, type[OpError]] = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    UNAUTHENTICATED: UnauthenticatedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
}

_EXCEPTION_CLASS_TO_CODE: dict[type[OpError], int] = {
    cls: code for code, cls in _CODE_TO_EXCEPTION_CLASS.items()
}


def exception_type_from_error_code(error_code: int) -> type[OpError]:
    """The exception class for ``error_code``; KeyError if unknown (incl. ``OK``)."""
    return _CODE_TO_EXCEPTION_CLASS[error_code]


def error_code_from_exception_type(cls: type) -> int:
    """The error code of exception class ``cls``; ``UNKNOWN`` (with a warning) if unknown."""
    try:
        return _EXCEPTION_CLASS_TO_CODE[cls]
    except (KeyError, TypeError):
        warnings.warn("Unknown class exception", stacklevel=2)
        return UNKNOWN


def _make_specific_exception(node_def: Any, op: Any, message: str, error_code: int) -> OpError:
    """Build the ``OpError`` subclass matching ``error_code`` (UnknownError if unknown)."""
    try:
        exc_type = _CODE_TO_EXCEPTION_CLASS[error_code]
    except (KeyError, TypeError):
        warnings.warn(f"Unknown error code: {error_code}", stacklevel=2)
        return UnknownError(node_def, op, message)
    return exc_type(node_def, op, message)
