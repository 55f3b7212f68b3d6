"""tf.keras.optimizers (graph mode): SGD, Adam and RMSprop with Keras' arguments and update
rules, their learning rate and iteration count Keras variables (``K.set_value(opt.lr, x)``
works), ``decay`` (lr / (1 + decay * iterations)) and gradient clipping. SGD and Adam run
graphcore's tf.train optimizers (the same updates: Keras' momentum and Adam are TF's);
RMSprop is Keras' own rule (epsilon outside the square root, mean square from zeros)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.keras import backend as K
from graphcore.keras import custom_objects as custom_lib
from graphcore.ops import clip_ops, control_flow_ops, gradients_impl, math_ops, state_ops
from graphcore.train import adam, gradient_descent, optimizer
from graphcore.train import momentum as momentum_lib

__all__ = ["Adam", "Optimizer", "RMSprop", "SGD", "deserialize", "get", "serialize"]


class _KerasRMSProp(optimizer.Optimizer):
    """Keras' RMSprop: ms = rho*ms + (1-rho)*g^2; var -= lr*g/(sqrt(ms)+eps) (with
    ``momentum``: mom = momentum*mom + lr*g/sqrt(ms+eps); var -= mom, TF's ApplyRMSProp)."""

    def __init__(self, learning_rate: Any, rho: float, momentum_value: float, epsilon: float,
                 centered: bool, name: str) -> None:
        super().__init__(False, name)
        self._lr, self._rho, self._momentum = learning_rate, rho, momentum_value
        self._epsilon, self._centered = epsilon, centered

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._zeros_slot(v, "rms", self._name)
            if self._momentum:
                self._zeros_slot(v, "momentum", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        dtype = var.dtype.base_dtype
        lr = math_ops.cast(self._lr, dtype)
        rms = self.get_slot(var, "rms")
        rms_t = state_ops.assign(rms, self._rho * rms + (1.0 - self._rho) * math_ops.square(grad))
        denom = rms_t
        if self._centered:
            mg = self.get_slot(var, "mg")
            mg_t = state_ops.assign(mg, self._rho * mg + (1.0 - self._rho) * grad)
            denom = rms_t - math_ops.square(mg_t)
        if self._momentum:
            mom = self.get_slot(var, "momentum")
            mom_t = state_ops.assign(
                mom, self._momentum * mom + lr * grad / math_ops.sqrt(denom + self._epsilon))
            return state_ops.assign_sub(var, mom_t)
        return state_ops.assign_sub(var, lr * grad / (math_ops.sqrt(denom) + self._epsilon))

    def _apply_sparse_duplicate_indices(self, grad: Any, var: Any) -> Any:
        return self._apply_dense(convert_to_tensor(grad), var)


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
                self._hypers[key] = K.variable(self._initial[name], name=name)
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
                self._iterations = K.variable(0, dtype="int64", name="iter")
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
        return _KerasRMSProp(lr, self.rho, self.momentum_value, self.epsilon, self.centered,
                             self._name)


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop}


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
