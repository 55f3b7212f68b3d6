"""tf.keras.optimizers (graph mode): SGD, Adam, RMSprop, Adagrad, Adadelta, Adamax, Nadam
and Ftrl with Keras' arguments, defaults and update rules, their learning rate and
iteration count Keras variables (``K.set_value(opt.lr, x)`` works), ``decay`` (lr / (1 +
decay * iterations)), gradient clipping and Keras' configs. SGD, Adam, Adadelta and Ftrl
run graphcore's tf.train optimizers (Keras' rules are TF's kernels there); RMSprop,
Adagrad, Adamax and Nadam are Keras' own rules (keras/optimizer_rules.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import ops as ops_lib
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.keras import backend as K
from graphcore.keras import custom_objects as custom_lib
from graphcore.keras import optimizer_rules as rules
from graphcore.ops import clip_ops, control_flow_ops, gradients_impl, math_ops, state_ops
from graphcore.ops import variables as variables_lib
from graphcore.train import adadelta, adam, ftrl, gradient_descent, optimizer
from graphcore.train import momentum as momentum_lib

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "Ftrl", "Nadam", "Optimizer", "RMSprop",
           "SGD", "deserialize", "get", "serialize"]



def _state_variable(value: Any, dtype: Any, name: str) -> Any:
    """An optimizer's own variable (its iteration count, a hyperparameter): not
    trainable, as Keras' OptimizerV2 makes them (add_weight(trainable=False)), so it is
    in neither trainable_variables() nor the parameter counts."""
    v = variables_lib.Variable(np.asarray(value, dtype=dtype), trainable=False, name=name)
    K.track_variable(v)
    return v

class Optimizer:
    """A Keras optimizer: ``get_updates(loss, params)`` returns the ops of one step."""

    def __init__(self, name: str, learning_rate: float, decay: float = 0.0,
                 clipnorm: float | None = None, clipvalue: float | None = None,
                 **kwargs: Any) -> None:
        if "lr" in kwargs:
            learning_rate = kwargs.pop("lr")
        for key in kwargs:
            if key not in ("global_clipnorm",):
                raise TypeError(f"Unexpected keyword argument passed to optimizer: {key}")
        self._name = name
        self._initial = {"learning_rate": float(learning_rate), "decay": float(decay)}
        self._hypers: dict = {}
        self._iterations = None
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = kwargs.get("global_clipnorm")

    def _hyper(self, name: str) -> Any:
        graph = ops_lib.get_default_graph()
        key = (graph, name)
        if key not in self._hypers:
            with graph.as_default(), ops_lib.name_scope(self._name):
                self._hypers[key] = _state_variable(self._initial[name], K.floatx(), name)
        return self._hypers[key]

    @property
    def learning_rate(self) -> Any:
        return self._hyper("learning_rate")

    lr = learning_rate

    @property
    def decay(self) -> Any:
        return self._hyper("decay")

    @property
    def iterations(self) -> Any:
        if self._iterations is None or self._iterations.graph is not \
                ops_lib.get_default_graph():
            with ops_lib.name_scope(self._name):
                self._iterations = _state_variable(0, "int64", "iter")
        return self._iterations

    def _lr_t(self) -> Any:
        lr = convert_to_tensor(self.learning_rate)
        if self._initial["decay"] > 0:
            lr = lr / (1.0 + self.decay * math_ops.cast(self.iterations, lr.dtype))
        return lr

    def get_gradients(self, loss: Any, params: list) -> list:
        grads = gradients_impl.gradients(loss, params)
        if any(g is None for g in grads):
            raise ValueError("An operation has `None` for gradient. Please make sure that "
                             "all of your ops have a gradient defined (i.e. are "
                             "differentiable).")
        if self.global_clipnorm is not None:
            grads, _ = clip_ops.clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipnorm is not None:
            grads = [clip_ops.clip_by_norm(g, self.clipnorm) for g in grads]
        if self.clipvalue is not None:
            grads = [IndexedSlices(clip_ops.clip_by_value(g.values, -self.clipvalue,
                                                          self.clipvalue), g.indices,
                                   g.dense_shape) if isinstance(g, IndexedSlices) else
                     clip_ops.clip_by_value(g, -self.clipvalue, self.clipvalue)
                     for g in grads]
        return grads

    def _tf_optimizer(self, lr: Any) -> optimizer.Optimizer:
        raise NotImplementedError

    def get_updates(self, loss: Any, params: list) -> list:
        grads = self.get_gradients(loss, params)
        with ops_lib.name_scope(self._name):
            iterations = self.iterations
            step = self._tf_optimizer(self._lr_t()).apply_gradients(list(zip(grads, params)))
            with ops_lib.control_dependencies([step]):
                increment = state_ops.assign_add(iterations, 1)
        return [control_flow_ops.group(step, increment)]

    _config_keys: tuple = ()

    def _hyper_value(self, name: str) -> float:
        """A hyperparameter as Keras' config holds it: the variable's (float32) value
        once it exists, else the value given."""
        variable = self._hypers.get((ops_lib.get_default_graph(), name))
        if variable is None:
            return self._initial[name]
        return float(K.get_value(variable))

    def get_config(self) -> dict:
        config = {"name": self._name}
        for key in ("clipnorm", "global_clipnorm", "clipvalue"):
            if getattr(self, key) is not None:
                config[key] = getattr(self, key)
        config["learning_rate"] = self._hyper_value("learning_rate")
        config["decay"] = self._initial["decay"]
        config.update((key, getattr(self, key)) for key in self._config_keys)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Optimizer:
        del custom_objects
        return cls(**config)


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum."""

    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.0,
                 nesterov: bool = False, name: str = "SGD", **kwargs: Any) -> None:
        super().__init__(name, learning_rate, **kwargs)
        if not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be between [0, 1].")
        self.momentum_value, self.nesterov = float(momentum), nesterov

    _config_keys = ("momentum", "nesterov")

    @property
    def momentum(self) -> float:
        return self.momentum_value

    def _tf_optimizer(self, lr: Any) -> optimizer.Optimizer:
        if self.momentum_value:
            return momentum_lib.MomentumOptimizer(lr, self.momentum_value,
                                              use_nesterov=self.nesterov, name=self._name)
        return gradient_descent.GradientDescentOptimizer(lr, name=self._name)


class Adam(Optimizer):
    def __init__(self, learning_rate: float = 0.001, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, amsgrad: bool = False,
                 name: str = "Adam", **kwargs: Any) -> None:
        if amsgrad:
            raise NotImplementedError("Adam(amsgrad=True) is not implemented in graphcore")
        super().__init__(name, learning_rate, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.amsgrad = amsgrad

    _config_keys = ("beta_1", "beta_2", "epsilon", "amsgrad")

    def _tf_optimizer(self, lr: Any) -> optimizer.Optimizer:
        return adam.AdamOptimizer(lr, self.beta_1, self.beta_2, self.epsilon, name=self._name)


class RMSprop(Optimizer):
    def __init__(self, learning_rate: float = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, name: str = "RMSprop",
                 **kwargs: Any) -> None:
        super().__init__(name, learning_rate, **kwargs)
        self.rho, self.momentum_value, self.epsilon = rho, momentum, epsilon
        self.centered = centered

    _config_keys = ("rho", "momentum", "epsilon", "centered")

    @property
    def momentum(self) -> float:
        return self.momentum_value

    def _tf_optimizer(self, lr: Any) -> optimizer.Optimizer:
        return rules.KerasRMSProp(lr, self.rho, self.momentum_value, self.epsilon, self.centered,
                             self._name)


class Adagrad(Optimizer):
    def __init__(self, learning_rate: float = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, name: str = "Adagrad", **kwargs: Any) -> None:
        if initial_accumulator_value < 0.0:
            raise ValueError("initial_accumulator_value must be non-negative: "
                             f"{initial_accumulator_value}")
        super().__init__(name, learning_rate, **kwargs)
        self.initial_accumulator_value, self.epsilon = initial_accumulator_value, epsilon

    _config_keys = ("initial_accumulator_value", "epsilon")

    def _tf_optimizer(self, lr: Any) -> optimizer.Optimizer:
        return rules.KerasAdagrad(lr, self.initial_accumulator_value, self.epsilon,
                                  self._name)


class Adadelta(Optimizer):
    def __init__(self, learning_rate: float = 0.001, rho: float = 0.95,
                 epsilon: float = 1e-7, name: str = "Adadelta", **kwargs: Any) -> None:
        super().__init__(name, learning_rate, **kwargs)
        self.rho, self.epsilon = rho, epsilon

    _config_keys = ("rho", "epsilon")

    def _tf_optimizer(self, lr: Any) -> optimizer.Optimizer:
        return adadelta.AdadeltaOptimizer(lr, self.rho, self.epsilon, name=self._name)


class Adamax(Optimizer):
    def __init__(self, learning_rate: float = 0.001, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, name: str = "Adamax",
                 **kwargs: Any) -> None:
        super().__init__(name, learning_rate, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    _config_keys = ("beta_1", "beta_2", "epsilon")

    def _tf_optimizer(self, lr: Any) -> optimizer.Optimizer:
        return rules.KerasAdamax(lr, self.beta_1, self.beta_2, self.epsilon, self.iterations,
                                 self._name)


class Nadam(Optimizer):
    """Adam with Nesterov momentum; its ``decay`` (``schedule_decay``, 0.004) is the
    momentum schedule's, not the learning rate's."""

    def __init__(self, learning_rate: float = 0.001, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, name: str = "Nadam",
                 **kwargs: Any) -> None:
        kwargs["decay"] = kwargs.pop("schedule_decay", kwargs.get("decay", 0.004))
        super().__init__(name, learning_rate, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    _config_keys = ("beta_1", "beta_2", "epsilon")

    def _lr_t(self) -> Any:
        return convert_to_tensor(self.learning_rate)

    def _tf_optimizer(self, lr: Any) -> optimizer.Optimizer:
        return rules.KerasNadam(lr, self.beta_1, self.beta_2, self.epsilon, self.iterations,
                                self._name, schedule_decay=self._initial["decay"])


class Ftrl(Optimizer):
    def __init__(self, learning_rate: float = 0.001, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, name: str = "Ftrl",
                 l2_shrinkage_regularization_strength: float = 0.0, beta: float = 0.0,
                 **kwargs: Any) -> None:
        super().__init__(name, learning_rate, **kwargs)
        if initial_accumulator_value < 0.0:
            raise ValueError("`initial_accumulator_value` needs to be positive or zero. "
                             f"Received: initial_accumulator_value={initial_accumulator_value}.")
        if learning_rate_power > 0.0:
            raise ValueError("`learning_rate_power` needs to be negative or zero. Received: "
                             f"learning_rate_power={learning_rate_power}.")
        for key, value in (("l1_regularization_strength", l1_regularization_strength),
                           ("l2_regularization_strength", l2_regularization_strength),
                           ("l2_shrinkage_regularization_strength",
                            l2_shrinkage_regularization_strength)):
            if value < 0.0:
                raise ValueError(f"`{key}` needs to be positive or zero. Received: "
                                 f"{key}={value}.")
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    _config_keys = ("learning_rate_power", "initial_accumulator_value",
                    "l1_regularization_strength", "l2_regularization_strength",
                    "l2_shrinkage_regularization_strength", "beta")

    def _tf_optimizer(self, lr: Any) -> optimizer.Optimizer:
        return ftrl.FtrlOptimizer(
            lr, self.learning_rate_power, self.initial_accumulator_value,
            self.l1_regularization_strength, self.l2_regularization_strength,
            name=self._name,
            l2_shrinkage_regularization_strength=self.l2_shrinkage_regularization_strength,
            beta=self.beta)


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad,
            "adadelta": Adadelta, "adamax": Adamax, "nadam": Nadam, "ftrl": Ftrl}


def serialize(optimizer: Optimizer) -> dict:
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config: dict, custom_objects: dict | None = None) -> Optimizer:
    """The optimizer of a ``{"class_name", "config"}`` dict (Keras' names, any case)."""
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or custom_lib.lookup(name) or \
        _BY_NAME.get(name.lower())
    if cls is None:
        raise ValueError(f"Unknown optimizer: '{name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is "
                         "included in the scope.")
    return cls.from_config(config.get("config", {}))


def get(identifier: Any) -> Any:
    """An optimizer from a name (``"sgd"``, ``"adam"``, ``"rmsprop"``) or an optimizer
    object; a tf.train optimizer is used as it is."""
    if isinstance(identifier, (Optimizer, optimizer.Optimizer)):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    if isinstance(identifier, dict):
        return deserialize(identifier)
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
