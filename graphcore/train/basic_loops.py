"""``tf.train.basic_train_loop``: steps a Supervisor's managed session until it stops,
starting over after AbortedError (TF's ``basic_loops.py``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import errors

__all__ = ["basic_train_loop"]


def basic_train_loop(supervisor: Any, train_step_fn: Any, args: Any = None,
                     kwargs: Any = None, master: str = "") -> None:
    """Calls ``train_step_fn(sess, *args, **kwargs)`` until ``supervisor.should_stop()``,
    in a new managed session after each AbortedError."""
    args = args if args is not None else []
    kwargs = kwargs if kwargs is not None else {}
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except errors.AbortedError:
            should_retry = True
