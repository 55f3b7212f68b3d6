"""What a task actor does for a whole job, beside running partitions.

:class:`JobCoordination`: one task actor of a cluster (the coordinator, ps 0 when there
is a ps job) counts the sessions the tasks' ``tf.train.Server`` targets open and close,
so that ``server.join()`` on a ps returns once the job is over: every worker task has
opened a session and closed them all, or said it is done (its process exited, or the
launcher ended the job).

:class:`ScriptHost`: runs an unmodified TF1 script as ``__main__`` in the actor's
process (the launcher's script mode), keeping its output lines for the driver to take.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import traceback
from typing import Any

# The job of tasks that serve variables; every other job's tasks are "workers" whose end
# ends the job (TF's ps never ends on its own).
PS_JOB = "ps"


def coordinator_task(cluster: Any) -> tuple[str, int]:
    """(job, task) of the task actor that keeps a cluster's job state."""
    job = PS_JOB if PS_JOB in cluster.jobs else sorted(cluster.jobs)[0]
    return job, cluster.task_indices(job)[0]


def worker_tasks(cluster: Any) -> list[str]:
    """The tasks whose end ends the job: every task outside the ps job."""
    return [f"/job:{job}/replica:0/task:{i}" for job in sorted(cluster.jobs) if job != PS_JOB
            for i in cluster.task_indices(job)]


class JobState:
    """Sessions opened and closed per task, tasks done, and whether the job ended."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._open: dict[str, int] = {}
        self._done: set[str] = set()
        self._ended = False

    def opened(self, task: str) -> None:
        with self._cond:
            self._open[task] = self._open.get(task, 0) + 1

    def closed(self, task: str) -> None:
        with self._cond:
            self._open[task] = max(self._open.get(task, 1) - 1, 0)
            self._cond.notify_all()

    def done(self, task: str) -> None:
        with self._cond:
            self._done.add(task)
            self._cond.notify_all()

    def end(self) -> None:
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def over(self, workers: list[str]) -> bool:
        with self._cond:
            return self._ended or all(
                t in self._done or (t in self._open and self._open[t] == 0) for t in workers)

    def wait(self, workers: list[str], timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._ended or all(
                t in self._done or (t in self._open and self._open[t] == 0)
                for t in workers), timeout)


class JobCoordination:
    """Task actor methods over its :class:`JobState` (made on first use)."""

    _job_state_lock = threading.Lock()

    def _job(self) -> JobState:
        with self._job_state_lock:
            state = self.__dict__.get("_job_state")
            if state is None:
                state = self.__dict__["_job_state"] = JobState()
            return state

    def job_session_opened(self, task: str) -> None:
        self._job().opened(task)

    def job_session_closed(self, task: str) -> None:
        self._job().closed(task)

    def job_task_done(self, task: str) -> None:
        self._job().done(task)

    def job_end(self) -> None:
        self._job().end()

    def job_wait_over(self, workers: list[str], timeout: float) -> bool:
        """True once the job is over; False when ``timeout`` s passed first."""
        return self._job().wait(workers, timeout)


class _Lines(io.TextIOBase):
    """A stream that keeps complete lines for the driver (and still writes through to the
    process's own stream, which Ray keeps in the worker's log)."""

    def __init__(self, out: list[str], lock: threading.Lock, through: Any):
        self._out = out
        self._lock = lock
        self._through = through
        self._partial = ""

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        try:
            self._through.write(s)
        except Exception:  # the worker's own log is best effort
            pass
        with self._lock:
            text = self._partial + s
            *lines, self._partial = text.split("\n")
            self._out.extend(lines)
        return len(s)

    def flush(self) -> None:
        try:
            self._through.flush()
        except Exception:
            pass

    def close_partial(self) -> None:
        with self._lock:
            if self._partial:
                self._out.append(self._partial)
                self._partial = ""


class ScriptHost:
    """Task actor methods running a launched script (one per actor process)."""

    _output_lock = threading.Lock()

    def _output(self) -> list[str]:
        with self._output_lock:
            return self.__dict__.setdefault("_script_output", [])

    def run_script(self, path: str, source: str, argv: list[str],
                   env: dict[str, str]) -> dict[str, Any]:
        """Runs ``source`` (the script at ``path``) as ``__main__`` with ``sys.argv =
        [path] + argv`` and ``env`` added to the environment.  Answers ``{"exit": code,
        "error": traceback text or None}``; ``sys.exit(0)`` is a success."""
        from graphcore.framework import ops

        os.environ.update(env)
        script_dir = os.path.dirname(os.path.abspath(path))
        # Sibling modules import from the script's directory: the actors of a local
        # cluster share the driver's file system (a remote node needs --working-dir).
        if os.path.isdir(script_dir) and script_dir not in sys.path:
            sys.path.insert(0, script_dir)
        out = self._output()
        streams = (sys.stdout, sys.stderr)
        tee_out = _Lines(out, self._output_lock, streams[0])
        tee_err = _Lines(out, self._output_lock, streams[1])
        sys.stdout, sys.stderr = tee_out, tee_err
        sys.argv = [path, *argv]
        result: dict[str, Any] = {"exit": 0, "error": None}
        try:
            code = compile(source, path, "exec")
            with ops.Graph().as_default():
                exec(code, {"__name__": "__main__", "__file__": path,
                            "__builtins__": __builtins__})
        except SystemExit as e:
            result["exit"] = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            if e.code is not None and not isinstance(e.code, int):
                print(e.code, file=sys.stderr)
        except BaseException:
            result["exit"] = 1
            result["error"] = traceback.format_exc()
            sys.stderr.write(result["error"])
        finally:
            sys.stdout.flush()
            tee_out.close_partial()
            tee_err.close_partial()
            sys.stdout, sys.stderr = streams
        return result

    def take_output(self) -> list[str]:
        """The script's output lines since the last call."""
        with self._output_lock:
            out = self.__dict__.setdefault("_script_output", [])
            lines = list(out)
            out.clear()
        return lines
