"""tf.keras.optimizers (graph mode): SGD, Adam, RMSprop, Adagrad, Adadelta, Adamax, Nadam
and Ftrl as tf_keras' legacy OptimizerV2 (:mod:`graphcore.keras.optimizer_v2`): their
arguments, defaults and configs, their variables (``training/Adam/iter``, the
hyperparameters, slots ``training/Adam/dense/kernel/m``) and their update rules -- TF's
training kernels where TF's optimizer calls one (ApplyAdam, ApplyRMSProp, ApplyAdagradV2,
ApplyAdadelta, ApplyFtrl...), the same arithmetic where it computes the update itself or
calls a kernel only resource variables have (Keras' momentum: accum = momentum * accum -
lr * grad; var += accum; Adam's amsgrad; AdaMax; Nadam's momentum schedule).  Sparse
gradients (an Embedding's) update the rows they name, as TF's sparse rules do."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.keras import custom_objects as custom_lib
from graphcore.keras import initializers, schedules
from graphcore.keras.optimizer_v2 import OptimizerV2
from graphcore.ops import array_ops, control_flow_ops, math_ops, sparse_training_ops, state_ops
from graphcore.train import optimizer, training_ops

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "Ftrl", "Nadam", "Optimizer", "RMSprop",
           "SGD", "deserialize", "get", "schedules", "serialize"]

Optimizer = OptimizerV2
_EPSILON = 1e-7


def _momentum_flag(momentum: Any) -> bool:
    if isinstance(momentum, (int, float)) and not 0 <= momentum <= 1:
        raise ValueError(f"`momentum` must be between [0, 1]. Received: momentum={momentum} "
                         f"(of type {type(momentum)}).")
    return not isinstance(momentum, (int, float)) or momentum > 0


class SGD(OptimizerV2):
    """Gradient descent; with ``momentum`` Keras' rule (accum = momentum * accum - lr *
    grad; var += accum, or with ``nesterov`` var += momentum * accum - lr * grad)."""

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, learning_rate: Any = 0.01, momentum: Any = 0.0, nesterov: bool = False,
                 name: str = "SGD", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._momentum = _momentum_flag(momentum)
        self._set_hyper("momentum", momentum)
        self.nesterov = nesterov

    def _create_slots(self, var_list: list) -> None:
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)]["momentum"] = array_ops.identity(
            self._get_hyper("momentum", var_dtype))

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        if not self._momentum:
            return training_ops.apply_gradient_descent(var, c["lr_t"], grad,
                                                       use_locking=self._use_locking)
        accum = self.get_slot(var, "momentum")
        scaled = grad * c["lr_t"]
        accum_t = state_ops.assign(accum, accum * c["momentum"] - scaled)
        if self.nesterov:
            return state_ops.assign_add(var, accum_t * c["momentum"] - scaled)
        return state_ops.assign_add(var, accum_t)

    def _resource_apply_sparse_duplicate_indices(self, grad: Any, var: Any, indices: Any,
                                                 **kwargs: Any) -> Any:
        if self._momentum:
            return super()._resource_apply_sparse_duplicate_indices(grad, var, indices,
                                                                    **kwargs)
        c = self._coefficients(var, kwargs.get("apply_state"))
        return self._resource_scatter_add(var, indices, -grad * c["lr_t"])

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any,
                               apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        accum = self.get_slot(var, "momentum")
        scaled = grad * c["lr_t"]
        accum_rows = array_ops.gather(accum, indices) * c["momentum"] - scaled
        accum_t = self._resource_scatter_update(accum, indices, accum_rows)
        step = accum_rows * c["momentum"] - scaled if self.nesterov else accum_rows
        with ops_lib.control_dependencies([accum_t]):
            return self._resource_scatter_add(var, indices, step)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "momentum": self._serialize_hyperparameter("momentum"),
                       "nesterov": self.nesterov})
        return config


class _MomentsMixin:
    """Shared by Adam, Adamax and Nadam: slots ``m`` then ``v`` for every variable."""

    def _create_moments(self, var_list: list) -> None:
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")


class Adam(_MomentsMixin, OptimizerV2):
    """Adam (ApplyAdam, the bias correction folded into the step size); ``amsgrad`` keeps
    the running maximum of ``v`` in the slot ``vhat``."""

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, learning_rate: Any = 0.001, beta_1: Any = 0.9, beta_2: Any = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False, name: str = "Adam",
                 **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or _EPSILON
        self.amsgrad = amsgrad

    def _create_slots(self, var_list: list) -> None:
        self._create_moments(var_list)
        if self.amsgrad:
            for var in var_list:
                self.add_slot(var, "vhat")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        local_step = math_ops.cast(self.iterations + 1, var_dtype)
        beta_1_t = array_ops.identity(self._get_hyper("beta_1", var_dtype))
        beta_2_t = array_ops.identity(self._get_hyper("beta_2", var_dtype))
        beta_1_power = math_ops.pow(beta_1_t, local_step)
        beta_2_power = math_ops.pow(beta_2_t, local_step)
        state = apply_state[(var_device, var_dtype)]
        lr = state["lr_t"] * (math_ops.sqrt(1 - beta_2_power) / (1 - beta_1_power))
        state.update(lr=lr, epsilon=convert_to_tensor(self.epsilon, var_dtype),
                     beta_1_t=beta_1_t, beta_1_power=beta_1_power,
                     one_minus_beta_1_t=1 - beta_1_t, beta_2_t=beta_2_t,
                     beta_2_power=beta_2_power, one_minus_beta_2_t=1 - beta_2_t)

    def set_weights(self, weights: list) -> None:
        params = self.weights
        num_vars = int((len(params) - 1) / 2)
        if len(weights) == 3 * num_vars + 1:
            weights = weights[:len(params)]
        super().set_weights(weights)

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        if not self.amsgrad:
            return training_ops.apply_adam(
                var, m, v, c["beta_1_power"], c["beta_2_power"], c["lr_t"], c["beta_1_t"],
                c["beta_2_t"], c["epsilon"], grad, use_locking=self._use_locking)
        # ApplyAdamWithAmsgrad's arithmetic.
        vhat = self.get_slot(var, "vhat")
        alpha = c["lr_t"] * math_ops.sqrt(1 - c["beta_2_power"]) / (1 - c["beta_1_power"])
        m_t = state_ops.assign_add(m, (grad - m) * (1 - c["beta_1_t"]))
        v_t = state_ops.assign_add(v, (math_ops.square(grad) - v) * (1 - c["beta_2_t"]))
        vhat_t = state_ops.assign(vhat, math_ops.maximum(vhat, v_t))
        return state_ops.assign_sub(var, (m_t * alpha) / (math_ops.sqrt(vhat_t) +
                                                          c["epsilon"]))

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any,
                               apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = state_ops.assign(m, m * c["beta_1_t"])
        with ops_lib.control_dependencies([m_t]):
            m_t = self._resource_scatter_add(m, indices, grad * c["one_minus_beta_1_t"])
        v_t = state_ops.assign(v, v * c["beta_2_t"])
        with ops_lib.control_dependencies([v_t]):
            v_t = self._resource_scatter_add(v, indices,
                                             (grad * grad) * c["one_minus_beta_2_t"])
        if not self.amsgrad:
            var_update = state_ops.assign_sub(
                var, c["lr"] * m_t / (math_ops.sqrt(v_t) + c["epsilon"]))
            return control_flow_ops.group(var_update, m_t, v_t)
        vhat = self.get_slot(var, "vhat")
        vhat_t = math_ops.maximum(vhat, v_t)
        with ops_lib.control_dependencies([vhat_t]):
            vhat_t = state_ops.assign(vhat, vhat_t)
        var_update = state_ops.assign_sub(
            var, c["lr"] * m_t / (math_ops.sqrt(vhat_t) + c["epsilon"]))
        return control_flow_ops.group(var_update, m_t, v_t, vhat_t)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "beta_1": self._serialize_hyperparameter("beta_1"),
                       "beta_2": self._serialize_hyperparameter("beta_2"),
                       "epsilon": self.epsilon, "amsgrad": self.amsgrad})
        return config


class RMSprop(OptimizerV2):
    """ms = rho * ms + (1 - rho) * grad^2; var -= lr * grad / (sqrt(ms) + epsilon) (or
    the centered ms - mg^2); with ``momentum`` TF's ApplyRMSProp/ApplyCenteredRMSProp."""

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.9, momentum: Any = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, name: str = "RMSprop",
                 **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self._momentum = _momentum_flag(momentum)
        self._set_hyper("momentum", momentum)
        self.epsilon = epsilon or _EPSILON
        self.centered = centered

    def _create_slots(self, var_list: list) -> None:
        for var in var_list:
            self.add_slot(var, "rms")
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")
        if self.centered:
            for var in var_list:
                self.add_slot(var, "mg")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        rho = array_ops.identity(self._get_hyper("rho", var_dtype))
        state = apply_state[(var_device, var_dtype)]
        state.update(neg_lr_t=-state["lr_t"],
                     epsilon=convert_to_tensor(self.epsilon, var_dtype), rho=rho,
                     momentum=array_ops.identity(self._get_hyper("momentum", var_dtype)),
                     one_minus_rho=1.0 - rho)

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        rms = self.get_slot(var, "rms")
        if self._momentum:
            mom = self.get_slot(var, "momentum")
            if self.centered:
                return training_ops.apply_centered_rms_prop(
                    var, self.get_slot(var, "mg"), rms, mom, c["lr_t"], c["rho"],
                    c["momentum"], c["epsilon"], grad, use_locking=self._use_locking)
            return training_ops.apply_rms_prop(
                var, rms, mom, c["lr_t"], c["rho"], c["momentum"], c["epsilon"], grad,
                use_locking=self._use_locking)
        rms_t = state_ops.assign(rms, c["rho"] * rms + c["one_minus_rho"] *
                                 math_ops.square(grad))
        denom_t = rms_t
        if self.centered:
            mg = self.get_slot(var, "mg")
            mg_t = state_ops.assign(mg, c["rho"] * mg + c["one_minus_rho"] * grad)
            denom_t = rms_t - math_ops.square(mg_t)
        var_t = var - c["lr_t"] * grad / (math_ops.sqrt(denom_t) + c["epsilon"])
        return state_ops.assign(var, var_t).op

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any,
                               apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        rms = self.get_slot(var, "rms")
        if self._momentum:
            mom = self.get_slot(var, "momentum")
            if self.centered:
                return sparse_training_ops.sparse_apply_centered_rms_prop(
                    var, self.get_slot(var, "mg"), rms, mom, c["lr_t"], c["rho"],
                    c["momentum"], c["epsilon"], grad, indices, use_locking=self._use_locking)
            return sparse_training_ops.sparse_apply_rms_prop(
                var, rms, mom, c["lr_t"], c["rho"], c["momentum"], c["epsilon"], grad,
                indices, use_locking=self._use_locking)
        rms_t = state_ops.assign(rms, rms * c["rho"])
        with ops_lib.control_dependencies([rms_t]):
            rms_t = self._resource_scatter_add(rms, indices,
                                               (grad * grad) * c["one_minus_rho"])
            denom = array_ops.gather(rms_t, indices)
        updates = [rms_t]
        if self.centered:
            mg = self.get_slot(var, "mg")
            mg_t = state_ops.assign(mg, mg * c["rho"])
            with ops_lib.control_dependencies([mg_t]):
                mg_t = self._resource_scatter_add(mg, indices, grad * c["one_minus_rho"])
                denom = denom - math_ops.square(array_ops.gather(mg_t, indices))
            updates.append(mg_t)
        var_update = self._resource_scatter_add(
            var, indices, c["neg_lr_t"] * grad / (math_ops.sqrt(denom) + c["epsilon"]))
        return control_flow_ops.group(var_update, *updates)

    def set_weights(self, weights: list) -> None:
        params = self.weights
        if len(params) == len(weights) + 1:
            weights = [0] + list(weights)
        super().set_weights(weights)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "rho": self._serialize_hyperparameter("rho"),
                       "momentum": self._serialize_hyperparameter("momentum"),
                       "epsilon": self.epsilon, "centered": self.centered})
        return config


class Adagrad(OptimizerV2):
    """accum += grad^2; var -= lr * grad / (sqrt(accum) + epsilon) (ApplyAdagradV2), the
    accumulators starting at ``initial_accumulator_value``."""

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, name: str = "Adagrad", **kwargs: Any) -> None:
        if initial_accumulator_value < 0.0:
            raise ValueError("initial_accumulator_value must be non-negative: "
                             f"{initial_accumulator_value}")
        if epsilon is None:
            epsilon = _EPSILON
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon or _EPSILON

    def _create_slots(self, var_list: list) -> None:
        for var in var_list:
            self.add_slot(var, "accumulator", initializers.Constant(self._initial_accumulator_value))

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        state = apply_state[(var_device, var_dtype)]
        state.update(epsilon=convert_to_tensor(self.epsilon, var_dtype),
                     neg_lr_t=-state["lr_t"])

    def set_weights(self, weights: list) -> None:
        params = self.weights
        if len(params) == len(weights) + 1:
            weights = [0] + list(weights)
        super().set_weights(weights)

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Adagrad:
        config = dict(config)
        config.setdefault("initial_accumulator_value", 0.1)
        return super().from_config(config, custom_objects)

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        return training_ops.apply_adagrad_v2(var, self.get_slot(var, "accumulator"),
                                             c["lr_t"], c["epsilon"], grad,
                                             use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any,
                               apply_state: dict = None) -> Any:
        # SparseApplyAdagradV2's arithmetic on the (unique) rows.
        c = self._coefficients(var, apply_state)
        accum = self.get_slot(var, "accumulator")
        accum_rows = array_ops.gather(accum, indices) + grad * grad
        accum_t = self._resource_scatter_update(accum, indices, accum_rows)
        with ops_lib.control_dependencies([accum_t]):
            return self._resource_scatter_add(
                var, indices, -(grad * c["lr_t"] / (math_ops.sqrt(accum_rows) +
                                                    c["epsilon"])))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "initial_accumulator_value": self._initial_accumulator_value,
                       "epsilon": self.epsilon})
        return config


class Adadelta(OptimizerV2):
    """TF's ApplyAdadelta with slots ``accum_grad`` and ``accum_var``."""

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.95, epsilon: float = 1e-7,
                 name: str = "Adadelta", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self.epsilon = epsilon or _EPSILON

    def _create_slots(self, var_list: list) -> None:
        for var in var_list:
            self.add_slot(var, "accum_grad")
        for var in var_list:
            self.add_slot(var, "accum_var")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)].update(
            epsilon=convert_to_tensor(self.epsilon, var_dtype),
            rho=array_ops.identity(self._get_hyper("rho", var_dtype)))

    def set_weights(self, weights: list) -> None:
        params = self.weights
        if len(params) == len(weights) + 1:
            weights = [0] + list(weights)
        super().set_weights(weights)

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        return training_ops.apply_adadelta(
            var, self.get_slot(var, "accum_grad"), self.get_slot(var, "accum_var"),
            c["lr_t"], c["rho"], c["epsilon"], grad, use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any,
                               apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        return sparse_training_ops.sparse_apply_adadelta(
            var, self.get_slot(var, "accum_grad"), self.get_slot(var, "accum_var"),
            c["lr_t"], c["rho"], c["epsilon"], grad, indices, use_locking=self._use_locking)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "rho": self._serialize_hyperparameter("rho"), "epsilon": self.epsilon})
        return config


class Adamax(_MomentsMixin, OptimizerV2):
    """AdaMax (ApplyAdaMax's arithmetic): m += (grad - m) * (1 - beta_1); v = max(beta_2 *
    v, |grad|); var -= lr / (1 - beta_1^t) * (m / (v + epsilon))."""

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, learning_rate: Any = 0.001, beta_1: Any = 0.9, beta_2: Any = 0.999,
                 epsilon: float = 1e-7, name: str = "Adamax", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or _EPSILON

    def _create_slots(self, var_list: list) -> None:
        self._create_moments(var_list)

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        local_step = math_ops.cast(self.iterations + 1, var_dtype)
        beta_1_t = array_ops.identity(self._get_hyper("beta_1", var_dtype))
        beta_2_t = array_ops.identity(self._get_hyper("beta_2", var_dtype))
        beta_1_power = math_ops.pow(beta_1_t, local_step)
        state = apply_state[(var_device, var_dtype)]
        state.update(neg_scaled_lr=-state["lr_t"] / (1 - beta_1_power),
                     epsilon=convert_to_tensor(self.epsilon, var_dtype), beta_1_t=beta_1_t,
                     beta_1_power=beta_1_power, one_minus_beta_1_t=1 - beta_1_t,
                     beta_2_t=beta_2_t)

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = state_ops.assign_add(m, (grad - m) * (1 - c["beta_1_t"]))
        v_t = state_ops.assign(v, math_ops.maximum(c["beta_2_t"] * v, math_ops.abs(grad)))
        return state_ops.assign_sub(var, c["lr_t"] / (1 - c["beta_1_power"]) *
                                    (m_t / (v_t + c["epsilon"])))

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any,
                               apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t_slice = array_ops.gather(m, indices) * c["beta_1_t"] + \
            grad * c["one_minus_beta_1_t"]
        with ops_lib.control_dependencies([m_t_slice]):
            m_t = self._resource_scatter_update(m, indices, m_t_slice)
        v_t_slice = math_ops.maximum(array_ops.gather(v, indices) * c["beta_2_t"],
                                     math_ops.abs(grad))
        with ops_lib.control_dependencies([v_t_slice]):
            v_t = self._resource_scatter_update(v, indices, v_t_slice)
        var_slice = c["neg_scaled_lr"] * (m_t_slice / (v_t_slice + c["epsilon"]))
        with ops_lib.control_dependencies([var_slice]):
            var_update = self._resource_scatter_add(var, indices, var_slice)
        return control_flow_ops.group(var_update, m_t, v_t)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "beta_1": self._serialize_hyperparameter("beta_1"),
                       "beta_2": self._serialize_hyperparameter("beta_2"),
                       "epsilon": self.epsilon})
        return config


class Nadam(_MomentsMixin, OptimizerV2):
    """Adam with Nesterov momentum and Keras' momentum schedule: ``momentum_cache`` (from
    1) is multiplied each step by beta_1 * (1 - 0.5 * 0.96^(schedule_decay * t)); its
    ``decay`` is ``schedule_decay`` (0.004), not a learning-rate decay."""

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, learning_rate: Any = 0.001, beta_1: Any = 0.9, beta_2: Any = 0.999,
                 epsilon: float = 1e-7, name: str = "Nadam", **kwargs: Any) -> None:
        kwargs["decay"] = kwargs.pop("schedule_decay", 0.004)
        learning_rate = kwargs.get("lr", learning_rate)
        if isinstance(learning_rate, schedules.LearningRateSchedule):
            raise ValueError("The Nadam optimizer does not support "
                             "tf.keras.optimizers.LearningRateSchedules as the learning rate.")
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or _EPSILON
        self._m_cache = None

    def _reset_state(self) -> None:
        self._m_cache = None

    def _create_slots(self, var_list: list) -> None:
        var_dtype = var_list[0].dtype.base_dtype
        if self._m_cache is None:
            self._m_cache = self.add_weight("momentum_cache", shape=[], dtype=var_dtype,
                                            initializer="ones", trainable=False)
            self._weights.append(self._m_cache)
        self._create_moments(var_list)

    def _prepare(self, var_list: list) -> dict:
        self._m_cache_read = array_ops.identity(self._m_cache)
        return super()._prepare(var_list)

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        lr_t = array_ops.identity(self._get_hyper("learning_rate", var_dtype))
        beta_1_t = array_ops.identity(self._get_hyper("beta_1", var_dtype))
        beta_2_t = array_ops.identity(self._get_hyper("beta_2", var_dtype))
        local_step = math_ops.cast(self.iterations + 1, var_dtype)
        next_step = math_ops.cast(self.iterations + 2, var_dtype)
        decay_base = math_ops.cast(0.96, var_dtype)
        m_t = beta_1_t * (1.0 - 0.5 * math_ops.pow(decay_base,
                                                   self._initial_decay * local_step))
        m_t_1 = beta_1_t * (1.0 - 0.5 * math_ops.pow(decay_base,
                                                     self._initial_decay * next_step))
        m_schedule_new = math_ops.cast(self._m_cache_read, var_dtype) * m_t
        if var_dtype == self._m_cache.dtype.base_dtype:
            m_schedule_new = array_ops.identity(state_ops.assign(self._m_cache,
                                                                 m_schedule_new))
        m_schedule_next = m_schedule_new * m_t_1
        apply_state[(var_device, var_dtype)] = dict(
            lr_t=lr_t, neg_lr_t=-lr_t, epsilon=convert_to_tensor(self.epsilon, var_dtype),
            beta_1_t=beta_1_t, beta_2_t=beta_2_t, m_t=m_t, m_t_1=m_t_1,
            one_minus_beta_1_t=1 - beta_1_t, one_minus_beta_2_t=1 - beta_2_t,
            one_minus_m_t=1.0 - m_t, one_minus_m_schedule_new=1.0 - m_schedule_new,
            one_minus_m_schedule_next=1.0 - m_schedule_next,
            v_t_prime_denominator=1.0 - math_ops.pow(beta_2_t, local_step))

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        g_prime = grad / c["one_minus_m_schedule_new"]
        m_t = state_ops.assign(m, c["beta_1_t"] * m + c["one_minus_beta_1_t"] * grad)
        m_t_prime = m_t / c["one_minus_m_schedule_next"]
        v_t = state_ops.assign(v, c["beta_2_t"] * v + c["one_minus_beta_2_t"] *
                               math_ops.square(grad))
        v_t_prime = v_t / c["v_t_prime_denominator"]
        m_t_bar = c["one_minus_m_t"] * g_prime + c["m_t_1"] * m_t_prime
        var_t = var - c["lr_t"] * m_t_bar / (math_ops.sqrt(v_t_prime) + c["epsilon"])
        return state_ops.assign(var, var_t).op

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any,
                               apply_state: dict = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        g_prime = grad / c["one_minus_m_schedule_new"]
        m_t = state_ops.assign(m, m * c["beta_1_t"])
        with ops_lib.control_dependencies([m_t]):
            m_t = self._resource_scatter_add(m, indices, grad * c["one_minus_beta_1_t"])
            m_t_slice = array_ops.gather(m_t, indices)
        m_t_bar = c["one_minus_m_t"] * g_prime + c["m_t_1"] * (
            m_t_slice / c["one_minus_m_schedule_next"])
        v_t = state_ops.assign(v, v * c["beta_2_t"])
        with ops_lib.control_dependencies([v_t]):
            v_t = self._resource_scatter_add(v, indices,
                                             (grad * grad) * c["one_minus_beta_2_t"])
            v_t_slice = array_ops.gather(v_t, indices)
        v_t_prime = v_t_slice / c["v_t_prime_denominator"]
        var_update = self._resource_scatter_add(
            var, indices, c["neg_lr_t"] * m_t_bar / (math_ops.sqrt(v_t_prime) +
                                                     c["epsilon"]))
        return control_flow_ops.group(var_update, m_t_bar, v_t)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "beta_1": self._serialize_hyperparameter("beta_1"),
                       "beta_2": self._serialize_hyperparameter("beta_2"),
                       "epsilon": self.epsilon})
        return config


class Ftrl(OptimizerV2):
    """FTRL-proximal (ApplyFtrl, ApplyFtrlV2 with an L2 shrinkage); ``beta`` adds
    beta / (2 * lr) to the L2 strength."""

    def __init__(self, learning_rate: Any = 0.001, learning_rate_power: Any = -0.5,
                 initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: Any = 0.0,
                 l2_regularization_strength: Any = 0.0, name: str = "Ftrl",
                 l2_shrinkage_regularization_strength: float = 0.0, beta: Any = 0.0,
                 **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        if initial_accumulator_value < 0.0:
            raise ValueError("`initial_accumulator_value` needs to be positive or zero. "
                             f"Received: initial_accumulator_value={initial_accumulator_value}.")
        if learning_rate_power > 0.0:
            raise ValueError("`learning_rate_power` needs to be negative or zero. Received: "
                             f"learning_rate_power={learning_rate_power}.")
        for key, value in (("l1_regularization_strength", l1_regularization_strength),
                           ("l2_regularization_strength", l2_regularization_strength)):
            if value < 0.0:
                raise ValueError(f"`{key}` needs to be positive or zero. Received: "
                                 f"{key}={value}.")
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError("`l2_shrinkage_regularization_strength` needs to be positive or "
                             "zero. Received: l2_shrinkage_regularization_strength="
                             f"{l2_shrinkage_regularization_strength}.")
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("learning_rate_power", learning_rate_power)
        self._set_hyper("l1_regularization_strength", l1_regularization_strength)
        self._set_hyper("l2_regularization_strength", l2_regularization_strength)
        self._set_hyper("beta", beta)
        self._initial_accumulator_value = initial_accumulator_value
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength

    def _create_slots(self, var_list: list) -> None:
        for var in var_list:
            self.add_slot(var, "accumulator", initializers.Constant(self._initial_accumulator_value))
            self.add_slot(var, "linear")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        hyper = lambda name: array_ops.identity(self._get_hyper(name, var_dtype))  # noqa: E731
        apply_state[(var_device, var_dtype)].update(
            learning_rate_power=hyper("learning_rate_power"),
            l1_regularization_strength=hyper("l1_regularization_strength"),
            l2_regularization_strength=hyper("l2_regularization_strength"),
            beta=hyper("beta"),
            l2_shrinkage_regularization_strength=math_ops.cast(
                self._l2_shrinkage_regularization_strength, var_dtype))

    def _ftrl_args(self, var: Any, apply_state: dict) -> tuple:
        c = self._coefficients(var, apply_state)
        l2 = c["l2_regularization_strength"] + c["beta"] / (2.0 * c["lr_t"])
        return c, l2, self.get_slot(var, "accumulator"), self.get_slot(var, "linear")

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: dict = None) -> Any:
        c, l2, accum, linear = self._ftrl_args(var, apply_state)
        if self._l2_shrinkage_regularization_strength <= 0.0:
            return training_ops.apply_ftrl(
                var, accum, linear, grad, c["lr_t"], c["l1_regularization_strength"], l2,
                c["learning_rate_power"], use_locking=self._use_locking)
        return training_ops.apply_ftrl_v2(
            var, accum, linear, grad, c["lr_t"], c["l1_regularization_strength"], l2,
            c["l2_shrinkage_regularization_strength"], c["learning_rate_power"],
            use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any,
                               apply_state: dict = None) -> Any:
        c, l2, accum, linear = self._ftrl_args(var, apply_state)
        if self._l2_shrinkage_regularization_strength <= 0.0:
            return sparse_training_ops.sparse_apply_ftrl(
                var, accum, linear, grad, indices, c["lr_t"],
                c["l1_regularization_strength"], l2, c["learning_rate_power"],
                use_locking=self._use_locking)
        return sparse_training_ops.sparse_apply_ftrl_v2(
            var, accum, linear, grad, indices, c["lr_t"], c["l1_regularization_strength"],
            l2, c["l2_shrinkage_regularization_strength"], c["learning_rate_power"],
            use_locking=self._use_locking)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({
            "learning_rate": self._serialize_hyperparameter("learning_rate"),
            "decay": self._initial_decay,
            "initial_accumulator_value": self._initial_accumulator_value,
            "learning_rate_power": self._serialize_hyperparameter("learning_rate_power"),
            "l1_regularization_strength":
                self._serialize_hyperparameter("l1_regularization_strength"),
            "l2_regularization_strength":
                self._serialize_hyperparameter("l2_regularization_strength"),
            "beta": self._serialize_hyperparameter("beta"),
            "l2_shrinkage_regularization_strength":
                self._l2_shrinkage_regularization_strength})
        return config


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
