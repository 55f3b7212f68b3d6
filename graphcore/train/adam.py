"""``tf.train.AdamOptimizer`` (Kingma & Ba), TF1's formulation: ApplyAdam with the bias
correction folded into the step size via the ``beta1_power``/``beta2_power`` variables,
which ``_finish`` multiplies by beta1/beta2 after every update."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import control_flow_ops, math_ops, scatter_ops, state_ops
from graphcore.train import optimizer, training_ops

__all__ = ["AdamOptimizer"]


class AdamOptimizer(optimizer.Optimizer):
    """Adam; slots "m" (``<var>/Adam``) and "v" (``<var>/Adam_1``), zeros; non-slot
    variables ``beta1_power`` and ``beta2_power`` colocated with the first variable by
    name."""

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999,
                 epsilon: Any = 1e-8, use_locking: bool = False, name: str = "Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lr_t = None
        self._beta1_t = None
        self._beta2_t = None
        self._epsilon_t = None

    def _get_beta_accumulators(self):
        with optimizer.init_scope():
            graph = ops_lib.get_default_graph()
            return (self._get_non_slot_variable("beta1_power", graph=graph),
                    self._get_non_slot_variable("beta2_power", graph=graph))

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(initial_value=self._beta1, name="beta1_power",
                                       colocate_with=first_var)
        self._create_non_slot_variable(initial_value=self._beta2, name="beta2_power",
                                       colocate_with=first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        lr = self._call_if_callable(self._lr)
        beta1 = self._call_if_callable(self._beta1)
        beta2 = self._call_if_callable(self._beta2)
        epsilon = self._call_if_callable(self._epsilon)
        self._lr_t = convert_to_tensor(lr, name="learning_rate")
        self._beta1_t = convert_to_tensor(beta1, name="beta1")
        self._beta2_t = convert_to_tensor(beta2, name="beta2")
        self._epsilon_t = convert_to_tensor(epsilon, name="epsilon")

    def _apply_dense(self, grad, var):
        m = self.get_slot(var, "m")
        v = self.get_slot(var, "v")
        beta1_power, beta2_power = self._get_beta_accumulators()
        dtype = var.dtype.base_dtype
        return training_ops.apply_adam(
            var, m, v, optimizer.cast(beta1_power, dtype), optimizer.cast(beta2_power, dtype),
            optimizer.cast(self._lr_t, dtype), optimizer.cast(self._beta1_t, dtype),
            optimizer.cast(self._beta2_t, dtype), optimizer.cast(self._epsilon_t, dtype), grad,
            use_locking=self._use_locking)

    def _apply_sparse_shared(self, grad, var, indices, scatter_add):
        """TF1 Adam's sparse path: m and v decay everywhere (an Assign), the rows of the
        gradient are scatter-added into them, and the whole variable steps (AssignSub)."""
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        beta1_power = optimizer.cast(beta1_power, dtype)
        beta2_power = optimizer.cast(beta2_power, dtype)
        lr_t = optimizer.cast(self._lr_t, dtype)
        beta1_t = optimizer.cast(self._beta1_t, dtype)
        beta2_t = optimizer.cast(self._beta2_t, dtype)
        epsilon_t = optimizer.cast(self._epsilon_t, dtype)
        lr = (lr_t * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power))
        m = self.get_slot(var, "m")
        m_scaled_g_values = grad * (1 - beta1_t)
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with ops_lib.control_dependencies([m_t]):
            m_t = scatter_add(m, indices, m_scaled_g_values)
        v = self.get_slot(var, "v")
        v_scaled_g_values = (grad * grad) * (1 - beta2_t)
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with ops_lib.control_dependencies([v_t]):
            v_t = scatter_add(v, indices, v_scaled_g_values)
        v_sqrt = math_ops.sqrt(v_t)
        var_update = state_ops.assign_sub(var, lr * m_t / (v_sqrt + epsilon_t),
                                          use_locking=self._use_locking)
        return control_flow_ops.group(*[var_update, m_t, v_t])

    def _apply_sparse(self, grad, var):
        return self._apply_sparse_shared(
            grad.values, var, grad.indices,
            lambda x, i, v: scatter_ops.scatter_add(x, i, v, use_locking=self._use_locking))

    def _resource_scatter_add(self, x, i, v):
        with ops_lib.control_dependencies([scatter_ops.resource_scatter_add(x.handle, i, v)]):
            return x.value()

    def _resource_apply_sparse(self, grad, var, indices):
        return self._apply_sparse_shared(grad, var, indices, self._resource_scatter_add)

    def _finish(self, update_ops, name_scope):
        with ops_lib.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with ops_lib.colocate_with(beta1_power):
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t,
                                                  use_locking=self._use_locking)
                update_beta2 = beta2_power.assign(beta2_power * self._beta2_t,
                                                  use_locking=self._use_locking)
        return control_flow_ops.group(*update_ops + [update_beta1, update_beta2],
                                      name=name_scope)
