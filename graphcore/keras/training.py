"""tf.keras.Model in graph mode: ``compile`` builds the target placeholders, the total loss
(each output's mean loss, weighted, plus the layers' regularization losses), the metrics and
the training op once; ``fit``/``evaluate``/``predict`` and the ``*_on_batch`` methods feed
numpy batches to them in the Keras session, with the learning phase fed True while
training. Epoch values are the batch values averaged by batch size, as Keras reports."""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np

from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.keras import backend as K
from graphcore.keras import callbacks as callbacks_lib
from graphcore.keras import losses as losses_lib
from graphcore.keras import metrics as metrics_lib
from graphcore.keras import optimizers, saving, training_generator
from graphcore.keras.engine import Input, get_mask, keras_history
from graphcore.keras.network import Network
from graphcore.ops import array_ops, control_flow_ops, math_ops
from graphcore.ops import variables as variables_lib
from graphcore.train import optimizer as tf_optimizer

__all__ = ["Model"]


def _as_list(x: Any) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _match_rank(weight: Any, values: Any) -> Any:
    """``weight`` with a trailing axis added or removed to have the rank of ``values``
    (Keras' squeeze_or_expand_dimensions)."""
    w_rank, v_rank = weight.shape.ndims, values.shape.ndims
    if w_rank is not None and v_rank is not None:
        if w_rank == v_rank - 1:
            return array_ops.expand_dims(weight, -1)
        if w_rank == v_rank + 1 and weight.shape.as_list()[-1] == 1:
            return array_ops.squeeze(weight, [-1])
    return weight


def _loss_weights(weight: Any, mask: Any, losses: Any) -> Any:
    """The sample weights times the output's mask scaled by ``size / sum(mask)``, so
    that the loss (a sum over the size) is the mean over the unmasked entries (Keras'
    apply_valid_mask)."""
    if mask is None:
        return weight
    mask = math_ops.cast(mask, losses.dtype)
    mask = mask * (math_ops.cast(array_ops.size(mask), losses.dtype) /
                   math_ops.reduce_sum(mask))
    return _match_rank(weight, mask) * mask


def _with_mask(weight: Any, mask: Any, values: Any) -> Any:
    """The sample weights times an output's mask (either may be None)."""
    if mask is None:
        return weight
    mask = math_ops.cast(mask, K.floatx())
    return mask if weight is None else _match_rank(weight, mask) * mask


def _total_and_count(values: Any, weight: Any) -> tuple:
    """A Mean metric's update: ``(sum(values * weights), sum(weights))``, the weights
    broadcast to the values' shape (all ones when None)."""
    if weight is None:
        return math_ops.reduce_sum(values), math_ops.cast(array_ops.size(values), K.floatx())
    weight = _match_rank(weight, values) * array_ops.ones_like(values)
    return math_ops.reduce_sum(values * weight), math_ops.reduce_sum(weight)


def _batch_shuffle(index: np.ndarray, batch_size: int) -> np.ndarray:
    """Keras' ``shuffle="batch"``: whole batches in a random order (np.random's, as
    Keras), a last partial batch kept at the end."""
    count = len(index) // batch_size
    head = index[:count * batch_size].reshape((count, batch_size))
    np.random.shuffle(head)
    return np.append(head.flatten(), index[count * batch_size:])


class Model(Network):
    """``Model(inputs, outputs)``, or a subclass with ``call``; trains with ``fit``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.optimizer = None
        self.stop_training = False
        self.history = None
        self._compiled = None
        self._graph_fns: dict = {}

    # -- compile ----------------------------------------------------------------------------
    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, metrics: Any = None,
                loss_weights: Any = None, sample_weight_mode: Any = None,
                weighted_metrics: Any = None, target_tensors: Any = None,
                **kwargs: Any) -> None:
        if target_tensors is not None or kwargs:
            raise NotImplementedError("compile: target tensors and "
                                      f"{sorted(kwargs)} are not implemented in graphcore")
        self.optimizer = optimizers.get(optimizer)
        self.loss = loss
        self._compiled = {"loss": loss, "metrics": metrics, "loss_weights": loss_weights,
                          "sample_weight_mode": sample_weight_mode,
                          "weighted_metrics": weighted_metrics}
        self._graph_fns = {}
        if self.outputs:
            self._build_training_graph()

    def _per_output(self, value: Any, default: Any, listed_per_output: bool) -> list:
        """``value`` for each output: from a dict by output name, from a list (when
        ``listed_per_output``) by position, else the same for all."""
        if isinstance(value, dict):
            return [value.get(n, default) for n in self.output_names]
        if listed_per_output and isinstance(value, (list, tuple)) and len(self.outputs) > 1:
            if len(value) != len(self.outputs):
                raise ValueError(f"When passing a list, it should have one entry per model "
                                 f"output. The model has {len(self.outputs)} outputs, but "
                                 f"you passed {value}")
            return list(value)
        return [default if value is None else value for _ in self.outputs]

    @property
    def output_names(self) -> list:
        return [keras_history(x)[0].name for x in self.outputs]

    def _build_training_graph(self) -> None:
        """Per output: a target placeholder and a sample-weight one (ones unless fed);
        the loss ``sum(per-sample loss * weights) / size`` with the output's Keras mask
        among the weights, as TF1's Keras; the metrics as (weighted total, count) pairs
        that the loops sum over an epoch."""
        compiled = self._compiled
        if compiled["loss"] is None:
            raise ValueError("The model cannot be compiled because it has no loss to "
                             "optimize.")
        graph = self.outputs[0].graph
        existing = {id(v) for v in variables_lib.global_variables()}
        loss_fns = self._per_output(compiled["loss"], None, True)
        weights = self._per_output(compiled["loss_weights"], 1.0, True)
        metric_lists = self._per_output(compiled["metrics"], [], False)
        weighted_lists = self._per_output(compiled["weighted_metrics"], [], False)
        modes = self._per_output(compiled["sample_weight_mode"], None, True)
        names = self.output_names
        self.metrics_names = ["loss"]
        targets, sample_weights, output_losses, metric_pairs = [], [], [], []
        with graph.as_default():
            for i, output in enumerate(self.outputs):
                targets.append(array_ops.placeholder(
                    output.dtype.base_dtype, shape=None, name=f"{names[i]}_target"))
                if modes[i] not in (None, "temporal", "samplewise"):
                    raise ValueError('"sample_weight_mode should be None or "temporal". '
                                     f"Found: {modes[i]}")
                rank = 2 if modes[i] == "temporal" else 1
                sample_weights.append(array_ops.placeholder_with_default(
                    array_ops.ones([1] * rank, K.floatx()), shape=[None] * rank,
                    name=f"{names[i]}_sample_weights"))
            with ops_lib.name_scope("loss"):
                for output, target, sample_weight, loss_fn, name in zip(
                        self.outputs, targets, sample_weights, loss_fns, names):
                    with ops_lib.name_scope(f"{name}_loss"):
                        per_sample = losses_lib.per_sample(loss_fn)(target, output)
                        weight = _loss_weights(sample_weight, get_mask(output), per_sample)
                        weighted = per_sample * _match_rank(weight, per_sample)
                        output_losses.append(math_ops.reduce_sum(weighted) / math_ops.cast(
                            array_ops.size(weighted), weighted.dtype))
                total = None
                for w, loss_value in zip(weights, output_losses):
                    term = loss_value * w if w != 1.0 else loss_value
                    total = term if total is None else total + term
                if self.losses:
                    total = total + math_ops.add_n(self.losses)
            if len(self.outputs) > 1:
                self.metrics_names += [f"{n}_loss" for n in names]
            with ops_lib.name_scope("metrics"):
                for output, target, sample_weight, loss_fn, metric_list, weighted_list, \
                        name in zip(self.outputs, targets, sample_weights, loss_fns,
                                    metric_lists, weighted_lists, names):
                    mask = get_mask(output)
                    for metric, weight, prefix in (
                            [(m, _with_mask(None, mask, output), "") for m in
                             _as_list(metric_list)] +
                            [(m, _with_mask(sample_weight, mask, output), "weighted_")
                             for m in _as_list(weighted_list)]):
                        metric_name, fn = metrics_lib.resolve(metric, losses_lib.get(loss_fn),
                                                              output)
                        metric_name = prefix + metric_name
                        with ops_lib.name_scope(metric_name):
                            values = math_ops.cast(fn(target, output), K.floatx())
                            metric_pairs.append(_total_and_count(values, weight))
                        self.metrics_names.append(
                            metric_name if len(self.outputs) == 1 else f"{name}_{metric_name}")
        for v in variables_lib.global_variables():
            if id(v) not in existing:
                K.track_variable(v)
        losses = [total] + (output_losses if len(self.outputs) > 1 else [])
        fetches = losses + [t for pair in metric_pairs for t in pair]
        self.total_loss = total
        self._targets = targets
        self._sample_weights = sample_weights
        self._num_losses = len(losses)
        self._train_function = None
        self._test_fetches = fetches

    @property
    def _train_fetches(self) -> tuple:
        """(train op, fetches). The optimizer's update ops (and so its variables) are made
        at the first training step under ``training/``, as TF's Keras makes its train
        function: before that the optimizer has no variables (a checkpoint or model file
        restores its state when they are made)."""
        if getattr(self, "_train_function", None) is None:
            total = self.total_loss
            existing = {id(v) for v in variables_lib.global_variables()}
            with total.graph.as_default(), ops_lib.name_scope("training"):
                if isinstance(self.optimizer, tf_optimizer.Optimizer):
                    train = [self.optimizer.minimize(total, var_list=self.trainable_weights)]
                else:
                    train = self.optimizer.get_updates(total, self.trainable_weights)
                train_op = control_flow_ops.group(*train, *self.updates)
                for v in variables_lib.global_variables():
                    if id(v) not in existing:
                        K.track_variable(v)
            self._train_function = (train_op, self._test_fetches)
        return self._train_function

    def save(self, filepath: Any, overwrite: bool = True, include_optimizer: bool = True,
             save_format: str | None = None, signatures: Any = None, options: Any = None,
             save_traces: bool = True) -> None:
        """Writes the model as Keras' HDF5 model file (``tf.keras.models.load_model``
        reads it back)."""
        saving.save_model(self, filepath, overwrite, include_optimizer, save_format,
                          signatures, options, save_traces)

    # -- feeding ----------------------------------------------------------------------------
    def _standardize(self, data: Any, tensors: list, what: str) -> list:
        if data is None:
            return []
        if isinstance(data, dict):
            names = [x.op.name for x in tensors] if what == "input" else self.output_names
            data = [data[n] for n in names]
        arrays = [np.asarray(a) for a in _as_list(data)]
        if len(arrays) != len(tensors):
            raise ValueError(f"Error when checking model {what}: the list of Numpy arrays "
                             f"that you are passing to your model is not the size the model "
                             f"expected. Expected to see {len(tensors)} array(s), but instead "
                             f"got {len(arrays)} arrays.")
        # Keras' standardize_single_array: a 1-D array gets a trailing axis unless its
        # tensor has rank 1 (labels of shape [n] for an output of shape [n, 1]).
        return [np.expand_dims(a, 1) if a.ndim == 1 and t.shape.ndims != 1 else a
                for a, t in zip(arrays, tensors)]

    def _ensure_inputs(self, x: Any) -> None:
        """A model without inputs yet (a subclass, a Sequential with no input shape) is
        built on placeholders shaped like ``x``."""
        if self.inputs:
            return
        arrays = [np.asarray(a) for a in _as_list(x)] if not isinstance(x, dict) else \
            [np.asarray(a) for a in x.values()]
        inputs = [Input(batch_shape=(None,) + a.shape[1:],
                        dtype="float32" if a.dtype.kind == "f" else a.dtype.name)
                  for a in arrays]
        self._build_on_inputs(inputs[0] if len(inputs) == 1 else inputs)

    def _build_on_inputs(self, inputs: Any) -> None:
        with ops_lib.name_scope(self.name):
            outputs = self.call(inputs)
        self.inputs, self.outputs = nest.flatten(inputs), nest.flatten(outputs)
        self._nested_inputs, self._nested_outputs = inputs, outputs
        self.built = True
        if self._compiled is not None:
            self._build_training_graph()

    def _sample_weights_for(self, ys: list, sample_weight: Any, class_weight: Any) -> list:
        """Per output, the weights of its samples (Keras' standardize_weights: the
        class weights of the targets' classes times the sample weights), or None."""
        sws = self._per_output(sample_weight, None, True) if sample_weight is not None \
            else [None] * len(ys)
        if isinstance(class_weight, dict) and class_weight and \
                set(class_weight) <= set(self.output_names):
            cws = [class_weight.get(n) for n in self.output_names]  # per output, by name
        elif isinstance(class_weight, (list, tuple)):
            cws = list(class_weight)
        else:
            cws = [class_weight] * len(ys)
        out = []
        for y, sw, cw in zip(ys, sws, cws):
            weight = None if sw is None else np.asarray(sw, np.float32)
            if cw is not None:
                if y.ndim > 2:
                    raise ValueError("`class_weight` not supported for 3+ dimensional "
                                     "targets.")
                classes = np.argmax(y, axis=1) if y.ndim == 2 and y.shape[1] > 1 else \
                    np.reshape(y, (-1,))
                missing = set(classes.tolist()) - set(cw)
                if missing:
                    raise ValueError("`class_weight` must contain all classes in the data. "
                                     f"The classes {missing} exist in the data but not in "
                                     "`class_weight`.")
                class_weights = np.asarray([cw[c] for c in classes.tolist()], np.float32)
                weight = class_weights if weight is None else class_weights * weight
            out.append(weight)
        return out

    def _run(self, fetches: Any, xs: list, ys: list, training: bool,
             ws: list | None = None) -> Any:
        feed = dict(zip(self.inputs, xs))
        feed.update(zip(self._targets if ys else [], ys))
        for placeholder, w in zip(self._sample_weights if ys else [], ws or []):
            if w is not None:
                feed[placeholder] = w
        phase = K.learning_phase()
        if training and not isinstance(phase, int):
            feed[phase] = True
        return K.get_session().run(fetches, feed_dict=feed)

    def _check_compiled(self) -> None:
        if self._compiled is None:
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`.")

    def _results(self, values: Any) -> list:
        """A batch's fetched values as loss(es) and metric values (total / count): float32
        scalars, as TF's train_on_batch / test_on_batch return them."""
        values = np.asarray(values, np.float32)
        n = self._num_losses
        return list(values[:n]) + list(values[n::2] / values[n + 1::2])

    # -- training loops -------------------------------------------------------------------
    def fit(self, x: Any = None, y: Any = None, batch_size: int | None = None,
            epochs: int = 1, verbose: int = 1, callbacks: Any = None,
            validation_split: float = 0.0, validation_data: Any = None,
            shuffle: Any = True, class_weight: Any = None, sample_weight: Any = None,
            initial_epoch: int = 0, steps_per_epoch: Any = None,
            validation_steps: Any = None, validation_freq: int = 1,
            **kwargs: Any) -> callbacks_lib.History:
        """Trains for ``epochs`` epochs of ``batch_size`` (default 32) samples; returns the
        History callback."""
        workers = kwargs.pop("workers", 1)
        if training_generator.is_generator(x):
            return training_generator.fit_generator(
                self, x, steps_per_epoch, epochs, verbose, callbacks, validation_data,
                validation_steps, validation_freq, class_weight,
                bool(shuffle) and workers > 0, initial_epoch)
        if steps_per_epoch:
            raise NotImplementedError("fit(steps_per_epoch=...) of arrays is not "
                                      "implemented in graphcore")
        self._check_compiled()
        self._ensure_inputs(x)
        xs = self._standardize(x, self.inputs, "input")
        ys = self._standardize(y, self.outputs, "target")
        ws = self._sample_weights_for(ys, sample_weight, class_weight)
        val = None
        if validation_data is not None:
            val_ys = self._standardize(validation_data[1], self.outputs, "target")
            val = (self._standardize(validation_data[0], self.inputs, "input"), val_ys,
                   self._sample_weights_for(val_ys, validation_data[2], None)
                   if len(validation_data) == 3 else [None] * len(val_ys))
        elif validation_split:
            split = int(len(xs[0]) * (1.0 - validation_split))
            val = ([a[split:] for a in xs], [a[split:] for a in ys],
                   [None if w is None else w[split:] for w in ws])
            xs, ys = [a[:split] for a in xs], [a[:split] for a in ys]
            ws = [None if w is None else w[:split] for w in ws]
        batch_size = batch_size or 32
        num_samples = len(xs[0])
        metric_names = list(self.metrics_names)
        if val is not None:
            metric_names += ["val_" + n for n in self.metrics_names]
        # The train function first (TF's makes it before the callbacks start).
        train_op, fetches = self._train_fetches
        self.history = callbacks_lib.History()
        params = {"batch_size": batch_size, "epochs": epochs, "steps": None,
                  "samples": num_samples, "verbose": verbose, "do_validation": val is not None,
                  "metrics": metric_names}
        cbs = callbacks_lib.CallbackList(_as_list(callbacks) + [self.history], self, params)
        self.stop_training = False
        if verbose:
            print(f"Train on {num_samples} samples" +
                  (f", validate on {len(val[0][0])} samples" if val is not None else ""))
        cbs.on_train_begin()
        for epoch in range(initial_epoch, epochs):
            cbs.on_epoch_begin(epoch, {})
            start = time.time()
            index = np.arange(num_samples)
            if shuffle == "batch":
                index = _batch_shuffle(index, batch_size)
            elif shuffle:
                np.random.shuffle(index)
            if num_samples <= batch_size:
                index = np.arange(num_samples)  # one batch: Keras feeds the data as it is
            sums = training_generator.EpochSums(self._num_losses, len(fetches))
            for batch, begin in enumerate(range(0, num_samples, batch_size)):
                ids = index[begin:begin + batch_size]
                cbs.on_train_batch_begin(batch, {"batch": batch, "size": len(ids)})
                values = self._run([train_op, fetches], [a[ids] for a in xs],
                                   [a[ids] for a in ys], training=True,
                                   ws=[None if w is None else w[ids] for w in ws])[1]
                sums.add(values, len(ids))
                logs = {"batch": batch, "size": len(ids)}
                # As Keras: the batch's loss, the metrics so far in the epoch.
                logs.update(zip(self.metrics_names, sums.results(values)))
                cbs.on_train_batch_end(batch, logs)
                if self.stop_training:
                    break
            epoch_logs = dict(zip(self.metrics_names, sums.results()))
            if val is not None and (epoch + 1) % validation_freq == 0:
                results = self._test_loop(val[0], val[1], batch_size, val[2], shuffle=True)
                epoch_logs.update(("val_" + n, v) for n, v in zip(self.metrics_names,
                                                                   results))
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs}")
                print(f"{num_samples}/{num_samples} - {time.time() - start:.0f}s - " +
                      " - ".join(f"{k}: {v:.4f}" for k, v in epoch_logs.items()))
                sys.stdout.flush()
            cbs.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        cbs.on_train_end()
        return self.history

    def fit_generator(self, generator: Any, steps_per_epoch: int | None = None,
                      epochs: int = 1, verbose: int = 1, callbacks: Any = None,
                      validation_data: Any = None, validation_steps: int | None = None,
                      validation_freq: int = 1, class_weight: Any = None,
                      max_queue_size: int = 10, workers: int = 1,
                      use_multiprocessing: bool = False, shuffle: bool = True,
                      initial_epoch: int = 0) -> callbacks_lib.History:
        """``fit`` over the batches of a generator or a ``keras.utils.Sequence`` (read in
        this thread; a Sequence is shuffled only with ``workers`` > 0, as Keras' enqueuer
        shuffles it and its ``workers=0`` path does not)."""
        del max_queue_size, use_multiprocessing
        return training_generator.fit_generator(
            self, generator, steps_per_epoch, epochs, verbose, callbacks, validation_data,
            validation_steps, validation_freq, class_weight, bool(shuffle) and workers > 0,
            initial_epoch)

    def evaluate_generator(self, generator: Any, steps: int | None = None,
                           callbacks: Any = None, max_queue_size: int = 10,
                           workers: int = 1, use_multiprocessing: bool = False,
                           verbose: int = 0) -> Any:
        del callbacks, max_queue_size, workers, use_multiprocessing
        return training_generator.evaluate_generator(self, generator, steps, verbose)

    def predict_generator(self, generator: Any, steps: int | None = None,
                          callbacks: Any = None, max_queue_size: int = 10,
                          workers: int = 1, use_multiprocessing: bool = False,
                          verbose: int = 0) -> Any:
        del callbacks, max_queue_size, workers, use_multiprocessing, verbose
        return training_generator.predict_generator(self, generator, steps)

    def _test_loop(self, xs: list, ys: list, batch_size: int, ws: list | None = None,
                   shuffle: bool = False) -> list:
        """The metrics over batches of the data; ``shuffle``: in an order of np.random's,
        as Keras' validation in fit draws one (one batch: the data as it is)."""
        num_samples = len(xs[0])
        ws = ws or [None] * len(ys)
        sums = training_generator.EpochSums(self._num_losses, len(self._test_fetches))
        index = np.arange(num_samples)
        if shuffle:
            np.random.shuffle(index)
        for begin in range(0, num_samples, batch_size):
            batch = slice(begin, begin + batch_size) if not shuffle or \
                num_samples <= batch_size else index[begin:begin + batch_size]
            values = self._run(self._test_fetches, [a[batch] for a in xs],
                               [a[batch] for a in ys], training=False,
                               ws=[None if w is None else w[batch] for w in ws])
            sums.add(values, len(xs[0][batch]))
        return sums.results()

    def evaluate(self, x: Any = None, y: Any = None, batch_size: int | None = None,
                 verbose: int = 1, sample_weight: Any = None, steps: Any = None,
                 callbacks: Any = None, **kwargs: Any) -> Any:
        """The loss (and metrics) over ``x``, ``y``: a scalar, or a list in the order of
        ``metrics_names``."""
        del callbacks, kwargs
        if training_generator.is_generator(x):
            return training_generator.evaluate_generator(self, x, steps, verbose)
        if steps is not None:
            raise NotImplementedError("evaluate(steps=...) of arrays is not implemented in "
                                      "graphcore")
        self._check_compiled()
        self._ensure_inputs(x)
        ys = self._standardize(y, self.outputs, "target")
        results = self._test_loop(self._standardize(x, self.inputs, "input"), ys,
                                  batch_size or 32,
                                  self._sample_weights_for(ys, sample_weight, None))
        if verbose:
            print(" - ".join(f"{k}: {v:.4f}" for k, v in zip(self.metrics_names, results)))
        results = [np.float32(v) for v in results]  # TF's evaluate gives float32 scalars
        return results[0] if len(results) == 1 else results

    def predict(self, x: Any, batch_size: int | None = None, verbose: int = 0,
                steps: Any = None, callbacks: Any = None, **kwargs: Any) -> Any:
        """The outputs for ``x``, batch by batch, as numpy arrays."""
        del verbose, callbacks, kwargs
        if training_generator.is_generator(x):
            return training_generator.predict_generator(self, x, steps)
        if steps is not None:
            raise NotImplementedError("predict(steps=...) of arrays is not implemented in "
                                      "graphcore")
        self._ensure_inputs(x)
        xs = self._standardize(x, self.inputs, "input")
        batch_size = batch_size or 32
        chunks = [self._run(self.outputs, [a[b:b + batch_size] for a in xs], [],
                            training=False) for b in range(0, len(xs[0]), batch_size)]
        outs = [np.concatenate([c[i] for c in chunks]) for i in range(len(self.outputs))]
        return outs[0] if len(outs) == 1 else outs

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                       class_weight: Any = None, reset_metrics: bool = True) -> Any:
        del reset_metrics
        self._check_compiled()
        self._ensure_inputs(x)
        train_op, fetches = self._train_fetches
        ys = self._standardize(y, self.outputs, "target")
        values = self._run([train_op, fetches], self._standardize(x, self.inputs, "input"),
                           ys, training=True,
                           ws=self._sample_weights_for(ys, sample_weight, class_weight))[1]
        values = self._results(values)
        return values[0] if len(values) == 1 else values

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                      reset_metrics: bool = True) -> Any:
        del reset_metrics
        self._check_compiled()
        self._ensure_inputs(x)
        ys = self._standardize(y, self.outputs, "target")
        values = self._run(self._test_fetches, self._standardize(x, self.inputs, "input"),
                           ys, training=False,
                           ws=self._sample_weights_for(ys, sample_weight, None))
        values = self._results(values)
        return values[0] if len(values) == 1 else values

    def predict_on_batch(self, x: Any) -> Any:
        self._ensure_inputs(x)
        outs = self._run(self.outputs, self._standardize(x, self.inputs, "input"), [],
                         training=False)
        return outs[0] if len(outs) == 1 else outs
