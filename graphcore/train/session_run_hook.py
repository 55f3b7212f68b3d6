"""Session hooks: TF1's ``SessionRunHook`` API (the standard hooks are in
:mod:`graphcore.train.basic_session_run_hooks`)."""

from __future__ import annotations

import collections
from typing import Any

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues"]



class SessionRunArgs(collections.namedtuple("SessionRunArgs",
                                            ["fetches", "feed_dict", "options"])):
    """What a hook adds to a step: fetches, feeds and options."""

    def __new__(cls, fetches: Any, feed_dict: Any = None, options: Any = None):
        return super().__new__(cls, fetches, feed_dict, options)


SessionRunValues = collections.namedtuple("SessionRunValues",
                                          ["results", "options", "run_metadata"])


class SessionRunContext:
    """The step being run, as a hook sees it."""

    def __init__(self, original_args: Any, session: Any):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> Any:
        return self._original_args

    @property
    def session(self) -> Any:
        return self._session

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def request_stop(self) -> None:
        self._stop_requested = True


class SessionRunHook:
    """Callbacks around a monitored session's steps (all optional)."""

    def begin(self) -> None:
        pass

    def after_create_session(self, session: Any, coord: Any) -> None:
        pass

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs | None:
        return None

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        pass

    def end(self, session: Any) -> None:
        pass
