"""fit/evaluate/predict over batches a Python generator or a ``keras.utils.Sequence``
yields (``fit_generator`` & co., and ``fit(x=generator)``), as TF1's Keras loops them:
``steps_per_epoch`` batches an epoch (a Sequence's length by default, its batch order
shuffled each epoch with ``shuffle``), the epoch loss the mean of the batch losses, the
metrics their totals over their counts."""

from __future__ import annotations

import random
import sys
import time
from typing import Any

import numpy as np

from graphcore.keras import callbacks as callbacks_lib

__all__ = ["EpochSums", "Sequence", "evaluate_generator", "fit_generator", "is_generator",
           "predict_generator"]


class Sequence:
    """A data set of batches: ``__getitem__(index)`` gives batch ``index``, ``__len__``
    their number; ``on_epoch_end`` runs after each epoch."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def on_epoch_end(self) -> None:
        pass

    def __iter__(self) -> Any:
        yield from (self[i] for i in range(len(self)))


def is_generator(x: Any) -> bool:
    return isinstance(x, Sequence) or hasattr(x, "__next__") or \
        (hasattr(x, "__iter__") and not hasattr(x, "__len__") and
         not isinstance(x, (dict, np.ndarray)))


class EpochSums:
    """What an epoch reports, as TF1's Keras loops aggregate it: the losses averaged over
    the batches weighted by their sizes, each metric its total over its count."""

    def __init__(self, num_losses: int, num_fetches: int) -> None:
        # float32 throughout, as TF's MetricsAggregator sums float32 batch losses and its
        # metrics' total/count variables are float32.
        self.num_losses = num_losses
        self.losses = np.zeros(num_losses, np.float32)
        self.totals = np.zeros((num_fetches - num_losses) // 2, np.float32)
        self.counts = np.zeros_like(self.totals)
        self.samples = 0

    def add(self, values: Any, size: int) -> None:
        values = np.asarray(values, np.float32)
        n = self.num_losses
        self.losses += values[:n] * np.float32(size)
        self.totals += values[n::2]
        self.counts += values[n + 1::2]
        self.samples += size

    def results(self, batch_values: Any = None) -> list:
        """The epoch's values so far (with ``batch_values``: that batch's losses), as
        Python floats of float32 values."""
        losses = self.losses / np.float32(max(self.samples, 1)) if batch_values is None \
            else np.asarray(batch_values, np.float32)[:self.num_losses]
        return [float(v) for v in losses] + [float(v) for v in self.totals / self.counts]


class _Batches:
    """The batches of one epoch, from a Sequence (in order or shuffled) or a generator."""

    def __init__(self, data: Any, steps: int | None, shuffle: bool) -> None:
        self.data, self.shuffle = data, shuffle
        self.is_sequence = isinstance(data, Sequence)
        if steps is None:
            if not self.is_sequence:
                raise ValueError("`steps_per_epoch=None` is only valid for a generator "
                                 "based on the `keras.utils.Sequence` class. Please specify "
                                 "`steps_per_epoch` or use the `keras.utils.Sequence` class.")
            steps = len(data)
        self.steps = steps
        self._iterator = None if self.is_sequence else iter(data)
        self._order = None

    def epoch(self) -> Any:
        if self.is_sequence:
            # As Keras' OrderedEnqueuer: one list, shuffled again each epoch by Python's
            # random.
            if self._order is None:
                self._order = list(range(len(self.data)))
            order = self._order
            if self.shuffle:
                random.shuffle(order)
            for step in range(self.steps):
                yield self.data[int(order[step % len(order)])]
            self.data.on_epoch_end()
        else:
            for _ in range(self.steps):
                yield next(self._iterator)


def _unpack(model: Any, batch: Any, class_weight: Any = None) -> tuple:
    if not isinstance(batch, tuple) or len(batch) not in (2, 3):
        raise ValueError("Output of generator should be a tuple `(x, y, sample_weight)` or "
                         f"`(x, y)`. Found: {batch}")
    x, y = batch[0], batch[1]
    model._ensure_inputs(x)
    xs = model._standardize(x, model.inputs, "input")
    ys = model._standardize(y, model.outputs, "target")
    ws = model._sample_weights_for(ys, batch[2] if len(batch) == 3 else None, class_weight)
    return xs, ys, ws


def _run_steps(model: Any, batches: _Batches, fetches: Any, training: bool,
               class_weight: Any = None, cbs: Any = None) -> list:
    flat = fetches[1] if training else fetches
    sums = EpochSums(model._num_losses, len(flat))
    for step, batch in enumerate(batches.epoch()):
        xs, ys, ws = _unpack(model, batch, class_weight)
        size = len(xs[0])
        if cbs is not None:
            cbs.on_train_batch_begin(step, {"batch": step, "size": size})
        values = model._run(fetches, xs, ys, training=training, ws=ws)
        values = values[1] if training else values
        # (TF1's Keras weighs the training batches by their sizes, the test ones
        # equally.)
        sums.add(values, size if training else 1)
        if cbs is not None:
            logs = {"batch": step, "size": size}
            logs.update(zip(model.metrics_names, sums.results(values)))
            cbs.on_train_batch_end(step, logs)
            if model.stop_training:
                break
    return sums.results()


def fit_generator(model: Any, generator: Any, steps_per_epoch: int | None = None,
                  epochs: int = 1, verbose: int = 1, callbacks: Any = None,
                  validation_data: Any = None, validation_steps: int | None = None,
                  validation_freq: int = 1, class_weight: Any = None, shuffle: bool = True,
                  initial_epoch: int = 0) -> callbacks_lib.History:
    model._check_compiled()
    train_fetches = model._train_fetches  # made before the callbacks start, as TF's
    batches = _Batches(generator, steps_per_epoch, shuffle)
    val_batches = None
    if validation_data is not None:
        if is_generator(validation_data):
            val_batches = _Batches(validation_data, validation_steps, False)
        else:
            val_batches = _Batches(_TupleSequence(validation_data), None, False)
    names = list(model.metrics_names)
    model.history = callbacks_lib.History()
    params = {"epochs": epochs, "steps": batches.steps, "verbose": verbose,
              "do_validation": val_batches is not None,
              "metrics": names + (["val_" + n for n in names] if val_batches else [])}
    cbs = callbacks_lib.CallbackList(list(callbacks or []) + [model.history], model, params)
    model.stop_training = False
    cbs.on_train_begin()
    for epoch in range(initial_epoch, epochs):
        cbs.on_epoch_begin(epoch, {})
        start = time.time()
        results = _run_steps(model, batches, train_fetches, True, class_weight, cbs)
        logs = dict(zip(model.metrics_names, results))
        if val_batches is not None and (epoch + 1) % validation_freq == 0:
            val = _run_steps(model, val_batches, model._test_fetches, False)
            logs.update(("val_" + n, v) for n, v in zip(model.metrics_names, val))
        if verbose:
            print(f"Epoch {epoch + 1}/{epochs}")
            print(f"{batches.steps}/{batches.steps} - {time.time() - start:.0f}s - " +
                  " - ".join(f"{k}: {v:.4f}" for k, v in logs.items()))
            sys.stdout.flush()
        cbs.on_epoch_end(epoch, logs)
        if model.stop_training:
            break
    cbs.on_train_end()
    return model.history


class _TupleSequence(Sequence):
    """Validation arrays ``(x, y[, sample_weight])`` as one batch."""

    def __init__(self, data: Any) -> None:
        self.data = tuple(data)

    def __len__(self) -> int:
        return 1

    def __getitem__(self, index: int) -> Any:
        return self.data


def evaluate_generator(model: Any, generator: Any, steps: int | None = None,
                       verbose: int = 0) -> Any:
    model._check_compiled()
    results = _run_steps(model, _Batches(generator, steps, False), model._test_fetches, False)
    if verbose:
        print(" - ".join(f"{k}: {v:.4f}" for k, v in zip(model.metrics_names, results)))
    return results[0] if len(results) == 1 else results


def predict_generator(model: Any, generator: Any, steps: int | None = None) -> Any:
    chunks = []
    for batch in _Batches(generator, steps, False).epoch():
        x = batch[0] if isinstance(batch, tuple) and len(batch) in (2, 3) else batch
        model._ensure_inputs(x)
        chunks.append(model._run(model.outputs, model._standardize(x, model.inputs, "input"),
                                 [], training=False))
    outs = [np.concatenate([c[i] for c in chunks]) for i in range(len(model.outputs))]
    return outs[0] if len(outs) == 1 else outs
