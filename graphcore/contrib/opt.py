"""``tf.contrib.opt`` (TF 1.15), the optimizers TF1 scripts use most: decoupled weight decay
(``DecoupledWeightDecayExtension``, ``extend_with_decoupled_weight_decay``,
``AdamWOptimizer``, ``MomentumWOptimizer``: ``var -= weight_decay * var`` before each
update, not scaled by the learning rate) and ``LazyAdamOptimizer`` (sparse gradients update
only their rows' moments and values)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, math_ops, scatter_ops
from graphcore.train import optimizer
from graphcore.train.adam import AdamOptimizer
from graphcore.train.momentum import MomentumOptimizer

__all__ = ["AdamWOptimizer", "DecoupledWeightDecayExtension", "LazyAdamOptimizer",
           "MomentumWOptimizer", "extend_with_decoupled_weight_decay"]


class DecoupledWeightDecayExtension:
    """Mixin for an Optimizer: each variable (of ``decay_var_list`` when given) first decays
    by ``weight_decay * var``, then gets the optimizer's update (Loshchilov & Hutter)."""

    def __init__(self, weight_decay: Any, **kwargs: Any) -> None:
        self._decay_var_list: Any = None
        self._weight_decay = weight_decay
        self._weight_decay_tensor = None
        super().__init__(**kwargs)

    def minimize(self, loss: Any, global_step: Any = None, var_list: Any = None,
                 gate_gradients: int = optimizer.Optimizer.GATE_OP,
                 aggregation_method: Any = None, colocate_gradients_with_ops: bool = False,
                 name: str | None = None, grad_loss: Any = None,
                 decay_var_list: Any = None) -> Any:
        self._decay_var_list = {id(v) for v in decay_var_list} if decay_var_list else False
        return super().minimize(loss, global_step=global_step, var_list=var_list,
                                gate_gradients=gate_gradients,
                                aggregation_method=aggregation_method,
                                colocate_gradients_with_ops=colocate_gradients_with_ops,
                                name=name, grad_loss=grad_loss)

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None,
                        name: str | None = None, decay_var_list: Any = None) -> Any:
        self._decay_var_list = {id(v) for v in decay_var_list} if decay_var_list else False
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _prepare(self) -> None:
        weight_decay = self._weight_decay
        if callable(weight_decay):
            weight_decay = weight_decay()
        self._weight_decay_tensor = convert_to_tensor(weight_decay, name="weight_decay")
        super()._prepare()

    def _decays(self, var: Any) -> bool:
        return not self._decay_var_list or id(var) in self._decay_var_list

    def _decay(self, var: Any) -> Any:
        return math_ops.cast(self._weight_decay_tensor, var.dtype.base_dtype)

    def _decay_weights_op(self, var: Any) -> Any:
        if self._decays(var):
            return var.assign_sub(self._decay(var) * var, self._use_locking)
        return control_flow_ops.no_op()

    def _decay_weights_sparse_op(self, var: Any, indices: Any, scatter_add: Any) -> Any:
        if self._decays(var):
            update = -self._decay(var) * array_ops.gather(var, indices)
            return scatter_add(var, indices, update, self._use_locking)
        return control_flow_ops.no_op()

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        with ops_lib.control_dependencies([self._decay_weights_op(var)]):
            return super()._apply_dense(grad, var)

    def _apply_sparse(self, grad: Any, var: Any) -> Any:
        decay_op = self._decay_weights_sparse_op(
            var, grad.indices,
            lambda x, i, v, locking: scatter_ops.scatter_add(x, i, v, use_locking=locking))
        with ops_lib.control_dependencies([decay_op]):
            return super()._apply_sparse(grad, var)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        def scatter_add(x: Any, i: Any, v: Any, _: Any = None) -> Any:
            with ops_lib.control_dependencies([scatter_ops.resource_scatter_add(x.handle, i,
                                                                                v)]):
                return x.value()

        decay_op = self._decay_weights_sparse_op(var, indices, scatter_add)
        with ops_lib.control_dependencies([decay_op]):
            return super()._resource_apply_sparse(grad, var, indices)


def extend_with_decoupled_weight_decay(base_optimizer: type) -> type:
    """``base_optimizer`` with decoupled weight decay: its constructor takes
    ``weight_decay`` first."""
    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecayExtension, base_optimizer):
        def __init__(self, weight_decay: Any, *args: Any, **kwargs: Any) -> None:
            super().__init__(weight_decay, *args, **kwargs)

    return OptimizerWithDecoupledWeightDecay


class MomentumWOptimizer(DecoupledWeightDecayExtension, MomentumOptimizer):
    """Momentum with decoupled weight decay."""

    def __init__(self, weight_decay: Any, learning_rate: Any, momentum: Any,
                 use_locking: bool = False, name: str = "MomentumW",
                 use_nesterov: bool = False) -> None:
        super().__init__(weight_decay, learning_rate=learning_rate, momentum=momentum,
                         use_locking=use_locking, name=name, use_nesterov=use_nesterov)


class AdamWOptimizer(DecoupledWeightDecayExtension, AdamOptimizer):
    """Adam with decoupled weight decay."""

    def __init__(self, weight_decay: Any, learning_rate: Any = 0.001, beta1: Any = 0.9,
                 beta2: Any = 0.999, epsilon: Any = 1e-8, use_locking: bool = False,
                 name: str = "AdamW") -> None:
        super().__init__(weight_decay, learning_rate=learning_rate, beta1=beta1,
                         beta2=beta2, epsilon=epsilon, use_locking=use_locking, name=name)


class LazyAdamOptimizer(AdamOptimizer):
    """Adam whose sparse updates touch only the gradient's rows: their m, v and values
    (dense gradients update as Adam)."""

    def _apply_sparse(self, grad: Any, var: Any) -> Any:
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        beta1_power = math_ops.cast(beta1_power, dtype)
        beta2_power = math_ops.cast(beta2_power, dtype)
        lr_t = math_ops.cast(self._lr_t, dtype)
        beta1_t = math_ops.cast(self._beta1_t, dtype)
        beta2_t = math_ops.cast(self._beta2_t, dtype)
        epsilon_t = math_ops.cast(self._epsilon_t, dtype)
        lr = lr_t * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        m = self.get_slot(var, "m")
        m_t = scatter_ops.scatter_update(
            m, grad.indices,
            beta1_t * array_ops.gather(m, grad.indices) + (1 - beta1_t) * grad.values,
            use_locking=self._use_locking)
        v = self.get_slot(var, "v")
        v_t = scatter_ops.scatter_update(
            v, grad.indices,
            beta2_t * array_ops.gather(v, grad.indices) +
            (1 - beta2_t) * math_ops.square(grad.values),
            use_locking=self._use_locking)
        m_t_slice = array_ops.gather(m_t, grad.indices)
        v_t_slice = array_ops.gather(v_t, grad.indices)
        var_update = scatter_ops.scatter_sub(
            var, grad.indices, lr * m_t_slice / (math_ops.sqrt(v_t_slice) + epsilon_t),
            use_locking=self._use_locking)
        return control_flow_ops.group(var_update, m_t, v_t)
