"""tf.train.Coordinator: stop a group of threads together and report their exceptions,
and tf.train.LooperThread."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

from graphcore.framework import errors

__all__ = ["Coordinator", "LooperThread"]


class Coordinator:
    """A coordinator for threads: any of them may ask all to stop (``request_stop``),
    each checks ``should_stop``, and ``join`` waits for them and re-raises the first
    exception reported."""

    def __init__(self, clean_stop_exception_types: tuple | None = None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise: Any = None
        self._joined = False
        self._registered_threads: set[threading.Thread] = set()

    def _filter_exception(self, ex: Any) -> Any:
        """``ex`` (an exception or an exc_info tuple), or None for a clean stop."""
        if isinstance(ex, tuple):
            ex2 = ex[1]
        else:
            ex2 = ex
        if isinstance(ex2, self._clean_stop_exception_types):
            ex = None
        return ex

    def request_stop(self, ex: Any = None) -> None:
        """Requests that the threads stop; ``ex`` (an exception or exc_info) is re-raised
        by :meth:`join` unless it is one of the clean-stop types."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    _, ex_instance, _ = ex
                else:
                    ex_instance = ex
                if ex_instance is not None:
                    # The threads were already joined: re-raise in the caller's thread.
                    if isinstance(ex, tuple):
                        raise ex[1].with_traceback(ex[2])
                    raise ex_instance
            if not self._stop_event.is_set():
                if ex and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        self._exc_info_to_raise = ex
                    else:
                        self._exc_info_to_raise = (type(ex), ex, ex.__traceback__)
                    if not isinstance(self._exc_info_to_raise[1], BaseException):
                        raise ValueError(
                            f"ex must be a tuple or sys.exc_info style object: {ex}")
                self._stop_event.set()

    def clear_stop(self) -> None:
        """Clears the stop flag so the coordinator can be reused."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self) -> bool:
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self) -> Iterator[None]:
        """A context manager that requests a stop when its body raises."""
        try:
            yield
        except Exception:
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        """Waits until a stop is requested (True) or ``timeout`` seconds pass (False)."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads: list | None = None, stop_grace_period_secs: float = 120,
             ignore_live_threads: bool = False) -> None:
        """Waits for ``threads`` (and the registered ones) to end; re-raises the exception
        passed to ``request_stop``; a thread still alive ``stop_grace_period_secs`` after
        the stop request raises RuntimeError unless ``ignore_live_threads``."""
        with self._lock:
            if threads is None:
                threads = list(self._registered_threads)
            else:
                threads = list(self._registered_threads.union(set(threads)))
        # Wait for the threads to end or a stop to be requested, then give them the grace
        # period to notice it.
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        stop_wait_secs = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait_secs)
            stop_grace_period_secs -= stop_wait_secs
            stop_wait_secs = 2 * stop_wait_secs
            stop_wait_secs = max(min(stop_wait_secs, stop_grace_period_secs), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _, ex_instance, tb = self._exc_info_to_raise
                raise ex_instance.with_traceback(tb)
        if stragglers:
            if ignore_live_threads:
                return
            raise RuntimeError(f"Coordinator stopped with threads still running: "
                               f"{' '.join(stragglers)}")

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self) -> None:
        """Re-raises the exception passed to ``request_stop``, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                _, ex_instance, tb = self._exc_info_to_raise
                raise ex_instance.with_traceback(tb)

    def loop(self, timer_interval_secs: float, target: Any, args: Any = None,
             kwargs: Any = None) -> LooperThread:
        """Starts a LooperThread calling ``target`` every ``timer_interval_secs``."""
        looper = LooperThread(self, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper


class LooperThread(threading.Thread):
    """A thread that runs ``target`` (or ``run_loop``) repeatedly until the coordinator
    asks to stop."""

    def __init__(self, coord: Coordinator, timer_interval_secs: float | None,
                 target: Any = None, args: Any = None, kwargs: Any = None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also "
                             "pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord: Coordinator, timer_interval_secs: float, target: Any, args: Any = None,
             kwargs: Any = None) -> LooperThread:
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def run(self) -> None:
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self) -> None:
        """Called once before the loop."""

    def stop_loop(self) -> None:
        """Called once after the loop."""

    def run_loop(self) -> None:
        if self._target:
            self._target(*self._args, **self._kwargs)
