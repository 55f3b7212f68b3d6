"""The thread-local default-session stack behind ``Tensor.eval`` and ``Operation.run``."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any


class _SessionStack(threading.local):
    def __init__(self) -> None:
        self.stack: list[Any] = []


_stack = _SessionStack()


def get_default_session() -> Any:
    """The innermost session of ``Session.as_default()`` in this thread, or None."""
    return _stack.stack[-1] if _stack.stack else None


@contextlib.contextmanager
def default_session(session: Any) -> Iterator[Any]:
    _stack.stack.append(session)
    try:
        yield session
    finally:
        if _stack.stack and _stack.stack[-1] is session:
            _stack.stack.pop()
        elif session in _stack.stack:
            _stack.stack.remove(session)


def run_with_session(fetch: Any, feed_dict: dict | None, session: Any) -> Any:
    """Runs ``fetch`` in ``session`` or the default session, checking the graphs agree."""
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                             "registered. Use `with sess.as_default()` or pass an explicit "
                             "session to `eval(session=sess)`")
    if session.graph is not fetch.graph:
        raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph "
                         "is different from the session's graph.")
    return session.run(fetch, feed_dict)
