"""``tf.train.CheckpointManager``: numbered object-based checkpoints in one directory, the
newest ``max_to_keep`` kept (plus one every ``keep_checkpoint_every_n_hours``), recorded
in the directory's ``checkpoint`` file with their timestamps, as TF's."""

from __future__ import annotations

import collections
import copy
import glob
import logging
import os
import time
from typing import Any

from graphcore.framework import session_stack
from graphcore.train import saver as saver_lib
from graphcore.train import training_util
from graphcore.train.checkpoint import CheckpointOptions

__all__ = ["CheckpointManager"]

_log = logging.getLogger("tensorflow")


def _evaluate(tensor: Any) -> Any:
    return session_stack.get_default_session().run(tensor)


def _delete_file_if_exists(filespec: str) -> None:
    for pathname in glob.glob(filespec):
        try:
            os.remove(pathname)
        except FileNotFoundError:
            pass


class CheckpointManager:
    """Saves ``checkpoint`` as ``<directory>/<checkpoint_name>-<n>`` and deletes old ones;
    a new manager on the same directory takes over the recorded state."""

    def __init__(self, checkpoint: Any, directory: Any, max_to_keep: int | None,
                 keep_checkpoint_every_n_hours: float | None = None,
                 checkpoint_name: str = "ckpt", step_counter: Any = None,
                 checkpoint_interval: int | None = None, init_fn: Any = None,
                 last_checkpoint_step: int | None = None):
        self._checkpoint = checkpoint
        self._save_counter_assign = None
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError("Expected a positive integer or `None` for `max_to_keep`, "
                             f"got {max_to_keep}.")
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        directory = os.fspath(directory) if isinstance(directory, os.PathLike) else directory
        self._directory = directory
        self._checkpoint_prefix = os.path.join(directory, checkpoint_name)
        self._init_fn = init_fn
        if checkpoint_interval is not None:
            if step_counter is None:
                raise ValueError("`step_counter` should be passed if `checkpoint_interval` "
                                 "is not None.")
            self._last_checkpoint_step = last_checkpoint_step
            self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        recovered_state = saver_lib.get_checkpoint_state(directory)
        current_clock = time.time()
        self._maybe_delete: collections.OrderedDict[str, float] = collections.OrderedDict()
        if recovered_state is None:
            self._latest_checkpoint = None
            # Slightly in the past, against a manager re-created at once (TF's comment).
            self._last_preserved_timestamp = current_clock - 1.
            return
        self._latest_checkpoint = recovered_state.model_checkpoint_path
        self._last_preserved_timestamp = recovered_state.last_preserved_timestamp
        if current_clock < self._last_preserved_timestamp:
            _log.warning("time.time() returned a value %f seconds behind the last preserved "
                         "checkpoint timestamp.",
                         self._last_preserved_timestamp - current_clock)
            self._last_preserved_timestamp = current_clock
        all_paths = list(recovered_state.all_model_checkpoint_paths)
        all_timestamps = list(recovered_state.all_model_checkpoint_timestamps)
        if not all_timestamps:
            all_timestamps = [self._last_preserved_timestamp] * len(all_paths)
        for filename, timestamp in zip(all_paths, all_timestamps):
            timestamp = min(timestamp, current_clock)
            if timestamp > self._last_preserved_timestamp:
                self._maybe_delete[filename] = timestamp

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint_interval(self) -> int | None:
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint's prefix, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The managed checkpoints, oldest first (not those kept by
        ``keep_checkpoint_every_n_hours``)."""
        return list(self._maybe_delete.keys())

    @property
    def checkpoint(self) -> Any:
        return self._checkpoint

    def _sweep(self) -> None:
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            filename, timestamp = self._maybe_delete.popitem(last=False)
            if (self._keep_checkpoint_every_n_hours
                    and (timestamp - self._keep_checkpoint_every_n_hours * 3600.
                         >= self._last_preserved_timestamp)):
                self._last_preserved_timestamp = timestamp
                continue
            _delete_file_if_exists(filename + ".index")
            _delete_file_if_exists(filename + ".data-?????-of-?????")

    def _record_state(self) -> None:
        filenames, timestamps = zip(*self._maybe_delete.items())
        saver_lib._update_checkpoint_state(
            self._directory, self._latest_checkpoint, list(filenames),
            save_relative_paths=True, all_model_checkpoint_timestamps=list(timestamps),
            last_preserved_timestamp=self._last_preserved_timestamp)

    def save(self, checkpoint_number: Any = None, check_interval: bool = True,
             options: CheckpointOptions | None = None) -> str | None:
        """Increments the checkpoint's ``save_counter``, writes ``<prefix>-<n>`` (``n``
        the counter, or ``checkpoint_number``) in the default session, then records and
        sweeps; None when ``checkpoint_interval`` steps have not passed."""
        if self._checkpoint_interval is not None:
            current_step = _evaluate(self._step_counter)
            if self._last_checkpoint_step is not None:
                if current_step == self._last_checkpoint_step:
                    return None
                if check_interval and current_step < (self._last_checkpoint_step
                                                      + self._checkpoint_interval):
                    return None
            self._last_checkpoint_step = current_step
        session = session_stack.get_default_session()
        if self._checkpoint._save_counter is None:
            session.run(self._checkpoint.save_counter.initializer)
        save_counter = self._checkpoint.save_counter
        if self._save_counter_assign is None:
            self._save_counter_assign = save_counter.assign_add(1, read_value=False)
        session.run(self._save_counter_assign)
        if checkpoint_number is None:
            checkpoint_number = save_counter
        if not isinstance(checkpoint_number, int):
            checkpoint_number = training_util.global_step(session, checkpoint_number)
        prefix = f"{self._checkpoint_prefix}-{int(checkpoint_number)}"

        def _record_and_sweep_state(save_path: str) -> None:
            timestamp = time.time()
            # A checkpoint written again goes to the end of the queue.
            self._maybe_delete.pop(save_path, None)
            self._maybe_delete[save_path] = timestamp
            self._latest_checkpoint = save_path
            # Recorded before deleting, so that a preemption mid-sweep sees the new one.
            self._record_state()
            self._sweep()
            self._record_state()

        if options is None:
            options = CheckpointOptions(experimental_write_callbacks=[_record_and_sweep_state])
        else:
            options = copy.copy(options)
            if options.experimental_write_callbacks is None:
                options.experimental_write_callbacks = [_record_and_sweep_state]
            else:
                options.experimental_write_callbacks.append(_record_and_sweep_state)
        return self._checkpoint.write(prefix, session=session, options=options)

    def restore_or_initialize(self) -> str | None:
        """Restores (builds the restore of) the latest checkpoint and returns its path;
        else calls ``init_fn`` and returns None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _evaluate(self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
            _log.info("Customized initialization is done through the passed `init_fn`.")
        return None
