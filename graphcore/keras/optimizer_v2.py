"""Keras' OptimizerV2 in graph mode (tf_keras' legacy optimizer, which ``tf.keras`` of
TF1 graph-mode code runs): the same variables under the same names and in the same order
as TF's, so that checkpoints, ``optimizer.weights`` and ``get_weights()`` interchange.

``apply_gradients`` (what ``get_updates`` of ``model.fit`` calls) opens the optimizer's
name scope (``training/Adam/`` under fit) and creates, once: ``iter`` (int64), then one
float32 variable per hyperparameter (a learning-rate schedule is none: it is evaluated at
``iterations`` each step) in sorted order (``beta_1``, ``beta_2``, ``decay``,
``learning_rate``...), then the subclass's slots, each named ``<var>/<slot>``
(``training/Adam/dense/kernel/m``) with the variable's shape and dtype.
``optimizer.weights`` is ``iter``, any non-slot state (Nadam's ``momentum_cache``) and
the slots in creation order; hyperparameters are global variables but not weights. The
updates run under ``<name>/update_<var>``, then ``iter`` increments.

A value restored (``Model.load_weights``) before the variable it belongs to exists is
kept and becomes that variable's initial value when the optimizer creates it, as TF's
deferred restoration does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.keras import backend as K
from graphcore.keras import initializers, schedules
from graphcore.ops import (
    array_ops,
    clip_ops,
    control_flow_ops,
    gradients_impl,
    math_ops,
    scatter_ops,
    state_ops,
)
from graphcore.ops import variables as variables_lib
from graphcore.train import optimizer as train_optimizer

__all__ = ["OptimizerV2"]

_ALLOWED_KWARGS = ("clipnorm", "clipvalue", "lr", "decay", "global_clipnorm")


def var_key(var: Any) -> str:
    """The key of a variable's slots: its shared name (``dense/kernel``)."""
    return var.op.name


def _is_tensor_or_variable(value: Any) -> bool:
    return isinstance(value, (ops_lib.Tensor, variables_lib.Variable)) or \
        hasattr(value, "handle")


class OptimizerV2:
    """The base of the Keras optimizers: hyperparameters (``_set_hyper``/``_get_hyper``,
    readable as attributes), ``iterations``, slots (``add_slot``/``get_slot``) and the
    dense/sparse update rules a subclass defines (``_resource_apply_dense``,
    ``_resource_apply_sparse``)."""

    _HAS_AGGREGATE_GRAD = False

    def __init__(self, name: str, gradient_aggregator: Any = None,
                 gradient_transformers: Any = None, **kwargs: Any) -> None:
        for k in kwargs:
            if k not in _ALLOWED_KWARGS:
                raise TypeError(f"Unexpected keyword argument passed to optimizer: {k}. "
                                f"Allowed kwargs are {set(_ALLOWED_KWARGS)}.")
            if kwargs[k] is not None and kwargs[k] < 0:
                raise ValueError(f"Expected {k} >= 0, received: {kwargs[k]}")
        self._use_locking = True
        self._name = name or K.unique_object_name(_snake_case(type(self).__name__))
        self._hyper: dict = {}
        self._hyper_values: dict = {}  # the Python values, for a fresh graph
        self._slots: dict = {}
        self._slot_names: list = []
        self._weights: list = []
        self._tracked: dict = {}  # add_weight's variables by name, in creation order
        self._iterations = None
        self._graph = None
        self._deferred: dict = {}
        decay = kwargs.pop("decay", 0.0)
        if decay < 0.0:
            raise ValueError(f"decay cannot be less than 0. Received: decay={decay}.")
        self._initial_decay = decay
        self._hypers_created = False
        self.gradient_aggregator = gradient_aggregator
        self.gradient_transformers = list(gradient_transformers or [])
        self.clipnorm = kwargs.pop("clipnorm", None)
        self.global_clipnorm = kwargs.pop("global_clipnorm", None)
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError("Cannot accept both `clipnorm` and `global_clipnorm`. Received: "
                             f"`clipnorm`={self.clipnorm}, "
                             f"`global_clipnorm`={self.global_clipnorm}.")
        self.clipvalue = kwargs.pop("clipvalue", None)

    # -- hyperparameters as attributes -----------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: hyperparameters (``lr`` too).
        if name.startswith("__") or name in ("_hyper", "_hyper_values"):
            raise AttributeError(name)
        if name == "lr":
            name = "learning_rate"
        hyper = self.__dict__.get("_hyper", {})
        if name in hyper:
            return self._get_hyper(name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "lr":
            name = "learning_rate"
        if "_hyper" in self.__dict__ and name in self._hyper:
            self._set_hyper(name, value)
        else:
            object.__setattr__(self, name, value)

    def __dir__(self) -> list:
        names = set(super().__dir__()) | set(self._hyper)
        if "learning_rate" in self._hyper:
            names.add("lr")
        return sorted(names)

    def _set_hyper(self, name: str, value: Any) -> None:
        """Sets hyperparameter ``name``: its variable's value once that exists."""
        previous = self._hyper.get(name)
        if previous is not None and isinstance(previous, variables_lib.Variable) and \
                not (_is_tensor_or_variable(value) or callable(value)):
            K.set_value(previous, value)
        else:
            self._hyper[name] = value
        if not (_is_tensor_or_variable(value) or callable(value)):
            self._hyper_values[name] = value

    def _get_hyper(self, name: str, dtype: Any = None) -> Any:
        if not self._hypers_created or self._other_graph():
            self._create_hypers()
        value = self._hyper[name]
        if isinstance(value, schedules.LearningRateSchedule):
            return value
        if callable(value) and not _is_tensor_or_variable(value):
            value = value()
        if dtype:
            return math_ops.cast(value, dtype)
        return value

    def _serialize_hyperparameter(self, name: str) -> Any:
        value = self._hyper[name]
        if isinstance(value, schedules.LearningRateSchedule):
            return schedules.serialize(value)
        if callable(value) and not _is_tensor_or_variable(value):
            return value()
        if _is_tensor_or_variable(value):
            return K.get_value(value)
        return value

    # -- variables ---------------------------------------------------------------------------
    def _other_graph(self) -> bool:
        return self._graph is not None and self._graph is not ops_lib.get_default_graph()

    def _reset_for_graph(self) -> None:
        """The variables of another graph are left there: this graph gets its own, from
        the Python values of the hyperparameters (TF's optimizer stays in its first
        graph; Keras scripts that clear the session and compile again need this)."""
        if not self._other_graph():
            return
        self._graph = None
        self._iterations = None
        self._slots = {}
        self._weights = []
        self._tracked = {}
        self._hypers_created = False
        for name, value in list(self._hyper.items()):
            if isinstance(value, variables_lib.Variable):
                self._hyper[name] = self._hyper_values[name]
        self._reset_state()

    def _reset_state(self) -> None:
        """A subclass's own state variables are dropped here (Nadam's cache)."""

    def add_weight(self, name: str, shape: Any, dtype: Any = None,
                   initializer: Any = "zeros", trainable: bool | None = None,
                   **kwargs: Any) -> Any:
        """A (non-slot) variable ``name`` under the current name scope; not added to
        ``weights`` (iterations and the subclass's state add themselves)."""
        del kwargs
        self._reset_for_graph()
        self._graph = ops_lib.get_default_graph()
        dtype = dtypes_lib.as_dtype(dtype or dtypes_lib.float32)
        restored = self._deferred.pop(("weight", name), None)
        if restored is not None:
            initial = np.asarray(restored, dtype=dtype.as_numpy_dtype)
        elif isinstance(initializer, str) or (callable(initializer) and
                                              not _is_tensor_or_variable(initializer)):
            init = initializers.get(initializer)
            initial = lambda: init(list(shape), dtype=dtype)  # noqa: E731
        else:
            initial = np.asarray(initializer, dtype=dtype.as_numpy_dtype)
        variable = variables_lib.Variable(initial, name=name, dtype=dtype,
                                          trainable=bool(trainable))
        K.track_variable(variable)
        self._tracked[name] = variable
        return variable

    @property
    def iterations(self) -> Any:
        """The number of steps this optimizer has run (``iter``, int64)."""
        self._reset_for_graph()
        if self._iterations is None:
            self._iterations = self.add_weight("iter", shape=[], dtype=dtypes_lib.int64,
                                               trainable=False)
            self._weights.append(self._iterations)
        return self._iterations

    @iterations.setter
    def iterations(self, variable: Any) -> None:
        if self._iterations is not None:
            raise RuntimeError("Cannot set `iterations` to a new Variable after the "
                               "Optimizer weights have been created. Here it is attempting "
                               f"to set `iterations` to {variable}.")
        self._iterations = variable
        self._weights.append(variable)

    def _create_hypers(self) -> None:
        self._reset_for_graph()
        if self._hypers_created:
            return
        for name, value in sorted(self._hyper.items()):
            if _is_tensor_or_variable(value) or callable(value):
                continue
            self._hyper[name] = self.add_weight(name, shape=[], trainable=False,
                                                initializer=value)
        self._hypers_created = True

    def _create_slots(self, var_list: list) -> None:
        del var_list

    def _create_all_weights(self, var_list: list) -> None:
        _ = self.iterations
        self._create_hypers()
        self._create_slots(var_list)

    def get_slot_names(self) -> list:
        return self._slot_names

    def add_slot(self, var: Any, slot_name: str, initializer: Any = "zeros",
                 shape: Any = None) -> Any:
        """The slot ``slot_name`` of ``var``: a variable ``<var>/<slot_name>`` shaped and
        typed as ``var``, colocated with it."""
        self._reset_for_graph()
        if slot_name not in self._slot_names:
            self._slot_names.append(slot_name)
        slot_dict = self._slots.setdefault(var_key(var), {})
        weight = slot_dict.get(slot_name)
        if weight is None:
            dtype = var.dtype.base_dtype
            slot_shape = var.shape if shape is None else shape
            restored = self._deferred.pop(("slot", var_key(var), slot_name), None)
            if restored is not None:
                initial = np.asarray(restored, dtype=dtype.as_numpy_dtype)
            elif isinstance(initializer, str) or callable(initializer):
                init = initializers.get(initializer)
                initial = lambda: init(slot_shape.as_list() if hasattr(  # noqa: E731
                    slot_shape, "as_list") else list(slot_shape), dtype=dtype)
            else:
                initial = initializer
            self._graph = ops_lib.get_default_graph()
            with ops_lib.colocate_with(var):
                weight = variables_lib.Variable(initial, name=f"{var_key(var)}/{slot_name}",
                                                dtype=dtype, trainable=False)
            K.track_variable(weight)
            slot_dict[slot_name] = weight
            self._weights.append(weight)
        return weight

    def get_slot(self, var: Any, slot_name: str) -> Any:
        return self._slots[var_key(var)][slot_name]

    def variables(self) -> list:
        return self._weights

    @property
    def weights(self) -> list:
        """``iter``, the optimizer's other state and its slots, in creation order."""
        return self._weights

    def get_weights(self) -> list:
        return K.batch_get_value(self.weights)

    def set_weights(self, weights: list) -> None:
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f"You called `set_weights(weights)` on optimizer {self._name} "
                             f"with a  weight list of length {len(weights)}, but the "
                             f"optimizer was expecting {len(params)} weights. Provided "
                             f"weights: {str(weights)[:50]}...")
        if not params:
            return
        values = K.batch_get_value(params)
        for value, w in zip(values, weights):
            if np.shape(value) != np.shape(w):
                raise ValueError(f"Optimizer weight shape {np.shape(value)} not compatible "
                                 f"with provided weight shape {np.shape(w)}.")
        K.batch_set_value(list(zip(params, weights)))

    # -- checkpoints -------------------------------------------------------------------------
    def _checkpoint_weights(self) -> dict:
        """The non-slot variables (iter, the hyperparameters, other state) in creation
        order, by the names a checkpoint keys them with (``optimizer/<name>/...``)."""
        return dict(self._tracked)

    def _trackable_children(self) -> dict:
        """Checkpoint dependencies (tf.train.Checkpoint): the non-slot variables; the
        slots are saved through ``get_slot_names``/``get_slot``."""
        return self._checkpoint_weights()

    def _defer_restore(self, key: tuple, value: Any) -> None:
        """Keeps a checkpoint value for a variable not created yet (``("weight",
        name)`` or ``("slot", var_key, slot_name)``)."""
        self._deferred[key] = value

    # -- gradients and updates ---------------------------------------------------------------
    def get_gradients(self, loss: Any, params: list) -> list:
        params = list(params)
        with ops_lib.name_scope(self._name + "/gradients"):
            grads = gradients_impl.gradients(loss, params)
            for grad, param in zip(grads, params):
                if grad is None:
                    raise ValueError(
                        f"Variable {param} has `None` for gradient. Please make sure that "
                        "all of your ops have a gradient defined (i.e. are "
                        "differentiable). Common ops without gradient: K.argmax, K.round, "
                        "K.eval.")
        return grads

    def minimize(self, loss: Any, var_list: Any, grad_loss: Any = None,
                 name: str | None = None, tape: Any = None) -> Any:
        """The update of ``var_list`` down the gradient of ``loss`` (a callable, or a
        tensor with the ``tape`` that recorded it), then ``iter += 1``."""
        if not callable(loss) and tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed. Received: "
                             f"loss={loss}, tape={tape}.")
        if callable(loss):
            loss = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = list(nest.flatten(var_list))
        with ops_lib.name_scope(self._name + "/gradients"):
            if tape is not None:
                grads = tape.gradient(loss, var_list, grad_loss)
            else:
                grads = gradients_impl.gradients(loss, var_list, grad_ys=grad_loss)
        return self.apply_gradients(list(zip(grads, var_list)), name=name)

    def get_updates(self, loss: Any, params: list) -> list:
        grads = self.get_gradients(loss, params)
        return [self.apply_gradients(list(zip(grads, params)))]

    def _transform_gradients(self, grads_and_vars: list) -> list:
        if self.clipvalue is not None:
            v = self.clipvalue
            grads_and_vars = [(_clip_value(g, -v, v), var) for g, var in grads_and_vars]
        if self.clipnorm is not None:
            grads_and_vars = [(clip_ops.clip_by_norm(g, self.clipnorm), var)
                              for g, var in grads_and_vars]
        if self.global_clipnorm is not None:
            grads, variables = zip(*grads_and_vars)
            clipped, _ = clip_ops.clip_by_global_norm(list(grads), self.global_clipnorm)
            grads_and_vars = list(zip(clipped, variables))
        for fn in self.gradient_transformers:
            grads_and_vars = fn(grads_and_vars)
        return grads_and_vars

    def apply_gradients(self, grads_and_vars: Any, name: str | None = None,
                        experimental_aggregate_gradients: bool = True) -> Any:
        """The update of every variable by its gradient, then ``iter += 1``."""
        del experimental_aggregate_gradients
        grads_and_vars = _filter_empty_gradients(grads_and_vars)
        var_list = [v for _, v in grads_and_vars]
        with ops_lib.name_scope(self._name):
            with train_optimizer.init_scope():
                self._create_all_weights(var_list)
            if not grads_and_vars:
                return control_flow_ops.no_op()
            apply_state = self._prepare(var_list)
            if self.gradient_aggregator is not None:
                grads_and_vars = self.gradient_aggregator(grads_and_vars)
            grads_and_vars = self._transform_gradients(grads_and_vars)
            return self._distributed_apply(grads_and_vars, apply_state, name)

    def _distributed_apply(self, grads_and_vars: list, apply_state: dict,
                           name: str | None) -> Any:
        update_ops = []
        with ops_lib.name_scope(name or self._name):
            for grad, var in grads_and_vars:
                with ops_lib.colocate_with(var), ops_lib.name_scope("update_" + var.op.name):
                    update_ops.append(self._apply_one(grad, var, apply_state))
            with ops_lib.control_dependencies([control_flow_ops.group(*update_ops)]):
                return state_ops.assign_add(self.iterations, 1).op

    def _apply_one(self, grad: Any, var: Any, apply_state: dict) -> Any:
        if isinstance(grad, IndexedSlices):
            if getattr(var, "constraint", None) is not None:
                raise RuntimeError("Cannot use a constraint function on a sparse variable. "
                                   f"Received: grad={grad}, var.constraint={var.constraint}.")
            return self._resource_apply_sparse_duplicate_indices(
                grad.values, var, grad.indices, apply_state=apply_state)
        update = self._resource_apply_dense(grad, var, apply_state=apply_state)
        if getattr(var, "constraint", None) is not None:
            with ops_lib.control_dependencies([update]):
                return state_ops.assign(var, var.constraint(var))
        return update

    def _prepare(self, var_list: list) -> dict:
        keys = {(v.device, v.dtype.base_dtype) for v in var_list}
        apply_state: dict = {}
        for device, dtype in sorted(keys, key=lambda k: (k[0], k[1].name)):
            apply_state[(device, dtype)] = {}
            with ops_lib.device(device):
                self._prepare_local(device, dtype, apply_state)
        return apply_state

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        if "learning_rate" in self._hyper:
            apply_state[(var_device, var_dtype)]["lr_t"] = array_ops.identity(
                self._decayed_lr(var_dtype))

    def _fallback_apply_state(self, var_device: str, var_dtype: Any) -> dict:
        apply_state: dict = {(var_device, var_dtype): {}}
        self._prepare_local(var_device, var_dtype, apply_state)
        return apply_state[(var_device, var_dtype)]

    def _coefficients(self, var: Any, apply_state: dict | None) -> dict:
        key = (var.device, var.dtype.base_dtype)
        return (apply_state or {}).get(key) or self._fallback_apply_state(*key)

    def _decayed_lr(self, var_dtype: Any) -> Any:
        """The learning rate (as ``var_dtype``), divided by ``1 + decay * iterations``
        when the optimizer was made with a ``decay``."""
        lr_t = self._get_hyper("learning_rate", var_dtype)
        if isinstance(lr_t, schedules.LearningRateSchedule):
            lr_t = math_ops.cast(lr_t(math_ops.cast(self.iterations, var_dtype)), var_dtype)
        if self._initial_decay > 0.0:
            local_step = math_ops.cast(self.iterations, var_dtype)
            decay_t = math_ops.cast(self._initial_decay, var_dtype)
            lr_t = lr_t / (1.0 + decay_t * local_step)
        return lr_t

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: dict) -> Any:
        raise NotImplementedError("`_resource_apply_dense` must be implemented in subclasses.")

    def _resource_apply_sparse_duplicate_indices(self, grad: Any, var: Any, indices: Any,
                                                 **kwargs: Any) -> Any:
        summed, unique = train_optimizer._deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed, var, unique, **kwargs)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any,
                               apply_state: dict) -> Any:
        raise NotImplementedError("`_resource_apply_sparse` Must be implemented in "
                                  "subclasses.")

    @staticmethod
    def _resource_scatter_add(x: Any, i: Any, v: Any) -> Any:
        return scatter_ops.scatter_add(x, i, v)

    @staticmethod
    def _resource_scatter_update(x: Any, i: Any, v: Any) -> Any:
        return scatter_ops.scatter_update(x, i, v)

    # -- config ------------------------------------------------------------------------------
    def get_config(self) -> dict:
        config: dict = {"name": self._name}
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        if self.global_clipnorm is not None:
            config["global_clipnorm"] = self.global_clipnorm
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> OptimizerV2:
        config = dict(config)
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"],
                                                            custom_objects)
        return cls(**config)


def _snake_case(name: str) -> str:
    import re
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


def _clip_value(grad: Any, lo: float, hi: float) -> Any:
    if isinstance(grad, IndexedSlices):
        return IndexedSlices(clip_ops.clip_by_value(grad.values, lo, hi), grad.indices,
                             grad.dense_shape)
    return clip_ops.clip_by_value(grad, lo, hi)


def _filter_empty_gradients(grads_and_vars: Any) -> list:
    grads_and_vars = list(grads_and_vars)
    if not grads_and_vars:
        return grads_and_vars
    filtered = [(g, v) for g, v in grads_and_vars if g is not None]
    if not filtered:
        names = ([v.name for _, v in grads_and_vars],)
        raise ValueError(f"No gradients provided for any variable: {names}. Provided "
                         f"`grads_and_vars` is {tuple(grads_and_vars)}.")
    return [(g if isinstance(g, IndexedSlices) else convert_to_tensor(g), v)
            for g, v in filtered]
