"""The update rules of Keras' optimizers that tf.train has no optimizer for, as tf.train
optimizers over graphcore's ops (each one TF's Keras kernel or formula): RMSprop (epsilon
outside the square root), Adagrad (ApplyAdagradV2: epsilon), Adamax (ApplyAdaMax) and
Nadam (Keras' momentum schedule). Sparse gradients (an Embedding's) update only their
rows where Keras' sparse rule does (Adamax, Nadam)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, math_ops, scatter_ops, state_ops
from graphcore.train import optimizer

__all__ = ["KerasAdagrad", "KerasAdamax", "KerasNadam", "KerasRMSProp"]


def _dense(grad: Any) -> Any:
    return convert_to_tensor(grad)


class KerasRMSProp(optimizer.Optimizer):
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
        return self._apply_dense(_dense(grad), var)


class KerasAdagrad(optimizer.Optimizer):
    """accum += g^2; var -= g * lr / (sqrt(accum) + epsilon); the accumulators start at
    ``initial_accumulator_value``."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: float, epsilon: float,
                 name: str) -> None:
        super().__init__(False, name)
        self._lr, self._initial, self._epsilon = learning_rate, initial_accumulator_value, \
            epsilon

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            dtype = v.dtype.base_dtype
            self._get_or_make_slot_with_initializer(
                v, lambda shape, dtype=dtype, partition_info=None: array_ops.fill(
                    shape, math_ops.cast(self._initial, dtype)),
                v.shape, dtype, "accumulator", self._name)

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        dtype = var.dtype.base_dtype
        accum = self.get_slot(var, "accumulator")
        accum_t = state_ops.assign_add(accum, math_ops.square(grad))
        return state_ops.assign_sub(var, grad * math_ops.cast(self._lr, dtype) / (
            math_ops.sqrt(accum_t) + math_ops.cast(self._epsilon, dtype)))

    def _apply_sparse_duplicate_indices(self, grad: Any, var: Any) -> Any:
        # Untouched rows get a zero gradient: nothing changes there, as in the sparse rule.
        return self._apply_dense(_dense(grad), var)


class _StepRule(optimizer.Optimizer):
    """A rule that reads Keras' iteration count (``local_step = iterations + 1``)."""

    def __init__(self, learning_rate: Any, beta_1: float, beta_2: float, epsilon: float,
                 iterations: Any, name: str) -> None:
        super().__init__(False, name)
        self._lr, self._beta_1, self._beta_2 = learning_rate, beta_1, beta_2
        self._epsilon, self._iterations = epsilon, iterations

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
        for v in var_list:
            self._zeros_slot(v, "v", self._name)

    def _local_step(self, dtype: Any, offset: int = 1) -> Any:
        return math_ops.cast(self._iterations + offset, dtype)

    def _apply_sparse_duplicate_indices(self, grad: Any, var: Any) -> Any:
        values, indices = optimizer._deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_rows(values, indices, var)

    def _apply_rows(self, grad: Any, indices: Any, var: Any) -> Any:
        raise NotImplementedError


class KerasAdamax(_StepRule):
    """m += (g - m) * (1 - beta_1); v = max(beta_2 * v, |g|);
    var -= lr / (1 - beta_1^t) * m / (v + epsilon) (ApplyAdaMax)."""

    def _coefficients(self, dtype: Any) -> tuple:
        lr = math_ops.cast(self._lr, dtype)
        beta_1 = math_ops.cast(self._beta_1, dtype)
        beta_1_power = math_ops.pow(beta_1, self._local_step(dtype))
        return lr, beta_1, beta_1_power, math_ops.cast(self._beta_2, dtype), \
            math_ops.cast(self._epsilon, dtype)

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        lr, beta_1, beta_1_power, beta_2, epsilon = self._coefficients(var.dtype.base_dtype)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = state_ops.assign_add(m, (grad - m) * (1.0 - beta_1))
        v_t = state_ops.assign(v, math_ops.maximum(beta_2 * v, math_ops.abs(grad)))
        return state_ops.assign_sub(var, lr / (1.0 - beta_1_power) * (m_t / (v_t + epsilon)))

    def _apply_rows(self, grad: Any, indices: Any, var: Any) -> Any:
        lr, beta_1, beta_1_power, beta_2, epsilon = self._coefficients(var.dtype.base_dtype)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t_slice = array_ops.gather(m, indices) * beta_1 + grad * (1.0 - beta_1)
        with ops_lib.control_dependencies([m_t_slice]):
            m_t = scatter_ops.scatter_update(m, indices, m_t_slice)
        v_t_slice = math_ops.maximum(array_ops.gather(v, indices) * beta_2, math_ops.abs(grad))
        with ops_lib.control_dependencies([v_t_slice]):
            v_t = scatter_ops.scatter_update(v, indices, v_t_slice)
        var_slice = -lr / (1.0 - beta_1_power) * (m_t_slice / (v_t_slice + epsilon))
        with ops_lib.control_dependencies([var_slice]):
            var_update = scatter_ops.scatter_add(var, indices, var_slice)
        return control_flow_ops.group(var_update, m_t, v_t)


class KerasNadam(_StepRule):
    """Adam with Nesterov momentum and Keras' momentum schedule: the momentum cache (a
    variable from 1) is multiplied each step by ``beta_1 * (1 - 0.5 *
    0.96^(schedule_decay * t))``."""

    def __init__(self, *args: Any, schedule_decay: float = 0.004, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._schedule_decay = schedule_decay

    def _create_slots(self, var_list: list) -> None:
        first = min(var_list, key=lambda x: x.name)
        self._m_cache = self._create_non_slot_variable(
            initial_value=1.0, name="momentum_cache", colocate_with=first)
        super()._create_slots(var_list)

    def _prepare(self) -> None:
        cache = self._m_cache
        dtype = cache.dtype.base_dtype
        beta_1 = math_ops.cast(self._beta_1, dtype)
        beta_2 = math_ops.cast(self._beta_2, dtype)
        decay_base = math_ops.cast(0.96, dtype)
        m_t = beta_1 * (1.0 - 0.5 * math_ops.pow(
            decay_base, self._schedule_decay * self._local_step(dtype)))
        m_t_1 = beta_1 * (1.0 - 0.5 * math_ops.pow(
            decay_base, self._schedule_decay * self._local_step(dtype, 2)))
        m_schedule_new = array_ops.identity(
            state_ops.assign(cache, array_ops.identity(cache) * m_t))
        self._c = {"lr": math_ops.cast(self._lr, dtype), "beta_1": beta_1, "beta_2": beta_2,
                   "epsilon": math_ops.cast(self._epsilon, dtype), "m_t": m_t, "m_t_1": m_t_1,
                   "one_minus_m_schedule_new": 1.0 - m_schedule_new,
                   "one_minus_m_schedule_next": 1.0 - m_schedule_new * m_t_1,
                   "v_t_prime_denominator": 1.0 - math_ops.pow(beta_2,
                                                               self._local_step(dtype))}

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        c = self._c
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        g_prime = grad / c["one_minus_m_schedule_new"]
        m_t = state_ops.assign(m, c["beta_1"] * m + (1 - c["beta_1"]) * grad)
        m_t_prime = m_t / c["one_minus_m_schedule_next"]
        v_t = state_ops.assign(v, c["beta_2"] * v + (1 - c["beta_2"]) * math_ops.square(grad))
        v_t_prime = v_t / c["v_t_prime_denominator"]
        m_t_bar = (1.0 - c["m_t"]) * g_prime + c["m_t_1"] * m_t_prime
        return state_ops.assign(var, var - c["lr"] * m_t_bar / (
            math_ops.sqrt(v_t_prime) + c["epsilon"])).op

    def _apply_rows(self, grad: Any, indices: Any, var: Any) -> Any:
        c = self._c
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        g_prime = grad / c["one_minus_m_schedule_new"]
        m_t = state_ops.assign(m, m * c["beta_1"])
        with ops_lib.control_dependencies([m_t]):
            m_t = scatter_ops.scatter_add(m, indices, grad * (1 - c["beta_1"]))
            m_t_slice = array_ops.gather(m_t, indices)
        m_t_bar = (1.0 - c["m_t"]) * g_prime + c["m_t_1"] * (
            m_t_slice / c["one_minus_m_schedule_next"])
        v_t = state_ops.assign(v, v * c["beta_2"])
        with ops_lib.control_dependencies([v_t]):
            v_t = scatter_ops.scatter_add(v, indices, (grad * grad) * (1 - c["beta_2"]))
            v_t_slice = array_ops.gather(v_t, indices)
        v_t_prime = v_t_slice / c["v_t_prime_denominator"]
        var_update = scatter_ops.scatter_add(
            var, indices, -c["lr"] * m_t_bar / (math_ops.sqrt(v_t_prime) + c["epsilon"]))
        return control_flow_ops.group(var_update, m_t_bar, v_t)
