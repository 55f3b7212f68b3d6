"""tf.keras.callbacks: Callback, History (what ``fit`` returns), EarlyStopping,
LearningRateScheduler, ReduceLROnPlateau, LambdaCallback, ModelCheckpoint (weights, or
whole HDF5 model files), CSVLogger, TerminateOnNaN and TensorBoard (the graph and the
epoch or batch logs as scalar summaries), and the list ``fit`` drives them through."""

from __future__ import annotations

import collections
import csv
import os
from typing import Any

import numpy as np

from graphcore.keras import backend as K

__all__ = ["CSVLogger", "Callback", "EarlyStopping", "History", "LambdaCallback",
           "LearningRateScheduler", "ModelCheckpoint", "ReduceLROnPlateau", "TensorBoard",
           "TerminateOnNaN"]


class Callback:
    """Hooks ``fit``/``evaluate``/``predict`` call; ``self.model`` is the model."""

    def __init__(self) -> None:
        self.model = None
        self.params: dict = {}
        self.validation_data = None

    def set_params(self, params: dict) -> None:
        self.params = params

    def set_model(self, model: Any) -> None:
        self.model = model

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None: ...
    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None: ...
    def on_batch_begin(self, batch: int, logs: dict | None = None) -> None: ...
    def on_batch_end(self, batch: int, logs: dict | None = None) -> None: ...
    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        self.on_batch_begin(batch, logs)

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self.on_batch_end(batch, logs)

    def on_train_begin(self, logs: dict | None = None) -> None: ...
    def on_train_end(self, logs: dict | None = None) -> None: ...


class CallbackList:
    def __init__(self, callbacks: list, model: Any, params: dict) -> None:
        self.callbacks = list(callbacks)
        for c in self.callbacks:
            c.set_model(model)
            c.set_params(params)

    def __getattr__(self, hook: str) -> Any:
        if not hook.startswith("on_"):
            raise AttributeError(hook)

        def call(*args: Any) -> None:
            for c in self.callbacks:
                getattr(c, hook)(*args)
        return call


class History(Callback):
    """``history[name]`` is the list of the epochs' values of each log entry."""

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.epoch: list = []
        self.history: dict = {}

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


class EarlyStopping(Callback):
    """Stops training when ``monitor`` has not improved by ``min_delta`` for ``patience``
    epochs (optionally restoring the best weights)."""

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0, patience: int = 0,
                 verbose: int = 0, mode: str = "auto", baseline: float | None = None,
                 restore_best_weights: bool = False, start_from_epoch: int = 0) -> None:
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.restore_best_weights = baseline, restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.monitor_op = _monitor_op(monitor, mode)
        self.min_delta = abs(min_delta) * (1 if self.monitor_op == np.greater else -1)

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf if self.monitor_op == np.less else -np.inf
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        current = (logs or {}).get(self.monitor)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self.monitor_op(current - self.min_delta, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self.monitor_op(current - self.min_delta,
                                                        self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs: dict | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")


def _monitor_op(monitor: str, mode: str) -> Any:
    if mode == "min" or (mode not in ("min", "max") and "acc" not in monitor):
        return np.less
    return np.greater


class ModelCheckpoint(Callback):
    """Saves the weights to ``filepath.format(epoch=..., **logs)`` after every ``period``
    epochs (only when ``monitor`` improved, with ``save_best_only``)."""

    def __init__(self, filepath: str, monitor: str = "val_loss", verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = False,
                 mode: str = "auto", save_freq: Any = "epoch", period: int = 1,
                 **kwargs: Any) -> None:
        super().__init__()
        self.save_weights_only = save_weights_only
        if save_freq != "epoch" or kwargs:
            raise NotImplementedError("ModelCheckpoint: only save_freq='epoch' is "
                                      "implemented in graphcore")
        self.filepath, self.monitor, self.verbose = str(filepath), monitor, verbose
        self.save_best_only, self.period = save_best_only, period
        self.monitor_op = _monitor_op(monitor, mode)
        self.best = np.inf if self.monitor_op == np.less else -np.inf
        self._since_last_save = 0

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        logs = logs or {}
        self._since_last_save += 1
        if self._since_last_save < self.period:
            return
        self._since_last_save = 0
        filepath = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None or not self.monitor_op(current, self.best):
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to "
                      f"{current:.5f}, saving model to {filepath}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {filepath}")
        if self.save_weights_only:
            self.model.save_weights(filepath)
        else:
            self.model.save(filepath)


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate to ``schedule(epoch, lr)`` before each epoch."""

    def __init__(self, schedule: Any, verbose: int = 0) -> None:
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        lr = float(K.get_value(self.model.optimizer.lr))
        try:
            lr = self.schedule(epoch, lr)
        except TypeError:
            lr = self.schedule(epoch)
        K.set_value(self.model.optimizer.lr, float(lr))
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if logs is not None:
            logs["lr"] = float(K.get_value(self.model.optimizer.lr))


class LambdaCallback(Callback):
    def __init__(self, on_epoch_begin: Any = None, on_epoch_end: Any = None,
                 on_batch_begin: Any = None, on_batch_end: Any = None,
                 on_train_begin: Any = None, on_train_end: Any = None) -> None:
        super().__init__()
        for name, fn in (("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_batch_begin", on_batch_begin), ("on_batch_end", on_batch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end)):
            if fn is not None:
                setattr(self, name, fn)


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` (down to ``min_lr``) once ``monitor`` has
    not improved by ``min_delta`` for ``patience`` epochs, then waits ``cooldown`` epochs;
    adds ``lr`` to the epoch's logs."""

    def __init__(self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 0, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0, **kwargs: Any) -> None:
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0. Got "
                             f"{factor}")
        min_delta = kwargs.pop("epsilon", min_delta)
        self.monitor, self.factor, self.min_lr, self.min_delta = monitor, factor, min_lr, \
            min_delta
        self.patience, self.verbose, self.cooldown = patience, verbose, cooldown
        self.mode = mode if mode in ("auto", "min", "max") else "auto"
        self._reset()

    def _reset(self) -> None:
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs: dict | None = None) -> None:
        self._reset()

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        logs = logs if logs is not None else {}
        logs["lr"] = K.get_value(self.model.optimizer.lr)
        current = logs.get(self.monitor)
        if current is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = K.get_value(self.model.optimizer.lr)
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    K.set_value(self.model.optimizer.lr, new_lr)
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning "
                              f"rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class CSVLogger(Callback):
    """Writes each epoch's logs as a row of a CSV file (``epoch`` then the log keys in
    sorted order)."""

    def __init__(self, filename: str, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        self.sep, self.filename, self.append = separator, os.fspath(filename), append
        self.writer = None
        self.keys: list | None = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs: dict | None = None) -> None:
        mode = "w"
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        self.csv_file = open(self.filename, mode, newline="")  # noqa: SIM115

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        logs = logs or {}

        def handle_value(k: Any) -> Any:
            zero_dim = isinstance(k, np.ndarray) and k.ndim == 0
            if isinstance(k, str):
                return k
            if isinstance(k, collections.abc.Iterable) and not zero_dim:
                return f'"[{", ".join(map(str, k))}]"'
            return k

        if self.keys is None:
            self.keys = sorted(logs.keys())
        if self.model.stop_training:
            logs = {k: logs.get(k, "NA") for k in self.keys}
        if not self.writer:
            sep = self.sep

            class CustomDialect(csv.excel):
                delimiter = sep

            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         dialect=CustomDialect)
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((key, handle_value(logs[key])) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs: dict | None = None) -> None:
        self.csv_file.close()
        self.writer = None


class TerminateOnNaN(Callback):
    """Stops training at the first batch whose loss is NaN or infinite."""

    def on_batch_end(self, batch: int, logs: dict | None = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class TensorBoard(Callback):
    """TF1's Keras TensorBoard callback: an event file in ``log_dir`` with the graph
    (``write_graph``) and the logs as scalar summaries, per epoch (tags ``epoch_loss``,
    ``epoch_val_loss``...) and per batch (``update_freq="batch"`` or a number of samples:
    tags ``batch_loss``...). Not here: histograms, images, embeddings, profiling."""

    def __init__(self, log_dir: str = "./logs", histogram_freq: int = 0,
                 batch_size: int = 32, write_graph: bool = True, write_grads: bool = False,
                 write_images: bool = False, embeddings_freq: int = 0,
                 embeddings_layer_names: Any = None, embeddings_metadata: Any = None,
                 embeddings_data: Any = None, update_freq: Any = "epoch",
                 profile_batch: Any = 2, **kwargs: Any) -> None:
        super().__init__()
        if histogram_freq or write_grads or write_images or embeddings_freq:
            raise NotImplementedError("TensorBoard: histograms, gradients, images and "
                                      "embeddings are not implemented in graphcore")
        self.log_dir, self.write_graph = os.fspath(log_dir), write_graph
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.writer = None
        self._samples_seen = 0
        self._samples_seen_at_last_write = 0
        self._total_batches_seen = 0

    def set_model(self, model: Any) -> None:
        from graphcore.summary import writer as writer_lib
        self.model = model
        graph = K.get_session().graph if self.write_graph else None
        self.writer = writer_lib.FileWriter(self.log_dir, graph)

    def _write_logs(self, logs: dict, step: int, prefix: str = "") -> None:
        from graphcore.protobuf import summary_pb2
        for name, value in logs.items():
            if name in ("batch", "size", "num_steps"):
                continue
            summary = summary_pb2.Summary()
            entry = summary.value.add()
            entry.simple_value = float(np.asarray(value).item())
            entry.tag = prefix + name
            self.writer.add_summary(summary, step)
        self.writer.flush()

    def on_batch_end(self, batch: int, logs: dict | None = None) -> None:
        if self.update_freq == "epoch":
            return
        logs = logs or {}
        self._samples_seen += logs.get("size", 1)
        if self._samples_seen - self._samples_seen_at_last_write >= self.update_freq:
            self._write_logs(logs, self._total_batches_seen, "batch_")
            self._samples_seen_at_last_write = self._samples_seen
        self._total_batches_seen += 1

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self._write_logs(logs or {}, epoch if self.update_freq == "epoch" else
                         self._samples_seen, "epoch_")

    def on_train_end(self, logs: dict | None = None) -> None:
        self.writer.close()
