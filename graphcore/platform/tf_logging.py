"""``tf.logging``: TF1's logging functions over the Python logger named "tensorflow".

The logger is configured once, as TF does: a stderr handler (stdout and INFO in an
interactive shell) only when the root logger has none, so an application that configured
logging itself does not see every line twice. Records name the user's file and line, not
this module's.
"""

from __future__ import annotations

import logging as _logging
import sys as _sys
import threading
import traceback as _traceback
from logging import DEBUG, ERROR, FATAL, INFO, WARN
from types import CodeType, FrameType
from typing import Any

__all__ = ["DEBUG", "ERROR", "FATAL", "INFO", "WARN", "TaskLevelStatusMessage", "debug",
           "error", "fatal", "flush", "get_logger", "get_verbosity", "info", "log",
           "log_every_n", "log_first_n", "log_if", "set_verbosity", "vlog", "warn", "warning"]

_logger: _logging.Logger | None = None
_logger_lock = threading.Lock()
_log_counter_per_token: dict[tuple[str, int], int] = {}


def _get_caller(offset: int = 3) -> tuple[CodeType | None, FrameType | None]:
    """The code and frame of the nearest caller outside this module."""
    f = _sys._getframe(offset)
    our_file = f.f_code.co_filename
    f = f.f_back
    while f:
        if f.f_code.co_filename != our_file:
            return f.f_code, f
        f = f.f_back
    return None, None


def _logger_find_caller(stack_info: bool = False, stacklevel: int = 1) -> tuple:
    code, frame = _get_caller(4)
    sinfo = "\n".join(_traceback.format_stack()) if stack_info else None
    if code:
        return code.co_filename, frame.f_lineno, code.co_name, sinfo
    return "(unknown file)", 0, "(unknown function)", sinfo


def get_logger() -> _logging.Logger:
    """The "tensorflow" logger, configured on first use."""
    global _logger
    if _logger:
        return _logger
    with _logger_lock:
        if _logger:
            return _logger
        logger = _logging.getLogger("tensorflow")
        logger.findCaller = _logger_find_caller
        if not _logging.getLogger().handlers:
            interactive = hasattr(_sys, "ps1") or bool(_sys.flags.interactive)
            if interactive:
                logger.setLevel(INFO)
            handler = _logging.StreamHandler(_sys.stdout if interactive else _sys.stderr)
            handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT, None))
            logger.addHandler(handler)
        _logger = logger
        return _logger


def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().debug(msg, *args, **kwargs)


def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().error(msg, *args, **kwargs)


def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at FATAL (== CRITICAL); like TF's, it does not end the program."""
    get_logger().fatal(msg, *args, **kwargs)


def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().info(msg, *args, **kwargs)


def warn(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().warning(msg, *args, **kwargs)


def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().warning(msg, *args, **kwargs)


def TaskLevelStatusMessage(msg: Any) -> None:  # noqa: N802 - TF's name
    error(msg)


def flush() -> None:
    """Not implemented, as in TF (its handlers write through)."""
    raise NotImplementedError()


def vlog(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().log(level, msg, *args, **kwargs)


def _get_next_log_count_per_token(token: tuple[str, int]) -> int:
    """How many times ``token`` was seen before (0 the first time)."""
    _log_counter_per_token[token] = 1 + _log_counter_per_token.get(token, -1)
    return _log_counter_per_token[token]


def _get_file_and_line() -> tuple[str, int]:
    code, f = _get_caller()
    if not code:
        return "<unknown>", 0
    return code.co_filename, f.f_lineno


def log_every_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs ``msg % args`` on the 1st, (n+1)th, (2n+1)th... call from the same line."""
    count = _get_next_log_count_per_token(_get_file_and_line())
    log_if(level, msg, not count % n, *args)


def log_first_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs ``msg % args`` on the first ``n`` calls from the same line."""
    count = _get_next_log_count_per_token(_get_file_and_line())
    log_if(level, msg, count < n, *args)


def log_if(level: int, msg: Any, condition: Any, *args: Any) -> None:
    """Logs ``msg % args`` when ``condition`` holds."""
    if condition:
        vlog(level, msg, *args)


def get_verbosity() -> int:
    """The logger's effective level."""
    return get_logger().getEffectiveLevel()


def set_verbosity(v: int) -> None:
    """Logs only messages at level ``v`` or above."""
    get_logger().setLevel(v)
