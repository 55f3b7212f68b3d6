"""tf.keras.callbacks: Callback, History (what ``fit`` returns), EarlyStopping,
LearningRateScheduler, LambdaCallback and ModelCheckpoint (weights only: whole-model files
need model.save, which graphcore does not have), and the list ``fit`` drives them
through."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.keras import backend as K

__all__ = ["Callback", "EarlyStopping", "History", "LambdaCallback", "LearningRateScheduler",
           "ModelCheckpoint"]


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
        if not save_weights_only:
            raise NotImplementedError("ModelCheckpoint(save_weights_only=False) saves whole "
                                      "models (model.save), which graphcore does not have; "
                                      "pass save_weights_only=True.")
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
        self.model.save_weights(filepath)


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
