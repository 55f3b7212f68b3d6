"""``tf.train.Optimizer``: the TF1 base class of the optimizers (dense and IndexedSlices
gradients, ref and resource variables).

``minimize`` = ``compute_gradients`` (``tf.gradients`` of the loss w.r.t. each variable's
ref) + ``apply_gradients``, which builds, under ``name_scope(name or <optimizer name>)``,
one ``update_<var>`` scope per variable colocated with it, then ``_finish`` (a group named
after the scope) and, with a ``global_step``, an AssignAdd of the step named like the scope
that runs after every update.  Slots are variables ``<var>/<optimizer name>`` colocated
with their variable (see :mod:`graphcore.train.slot_creator`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.tensor_conversion import (
    convert_to_tensor_or_indexed_slices,
)
from graphcore.ops import control_flow_ops, resource_variable_ops, state_ops
from graphcore.ops.variables import Variable, trainable_variables
from graphcore.train import slot_creator

__all__ = ["Optimizer"]


def _flatten(values: Any) -> list:
    if isinstance(values, (list, tuple)):
        out: list = []
        for v in values:
            out.extend(_flatten(v))
        return out
    if isinstance(values, dict):
        return _flatten([values[k] for k in sorted(values)])
    return [values]


def _deduplicate_indexed_slices(values: Any, indices: Any) -> tuple:
    """(summed values, unique indices): rows of ``values`` with the same index added up
    (Unique + UnsortedSegmentSum, as TF's)."""
    from graphcore.ops import array_ops, manip_ops

    unique_indices, new_index_positions = manip_ops.unique(indices)
    summed_values = array_ops.unsorted_segment_sum(values, new_index_positions,
                                                   array_ops.shape(unique_indices)[0])
    return summed_values, unique_indices


def _var_key(var: Any) -> tuple:
    """The key of ``var``'s slots: (graph, op name)."""
    return (var.op.graph, var.op.name)


@contextlib.contextmanager
def init_scope(graph: ops_lib.Graph | None = None) -> Iterator[None]:
    """TF's ``ops.init_scope`` in graph mode: out of any control-flow context and control
    dependencies, keeping the name scope (where optimizers create their variables)."""
    graph = graph or ops_lib.get_default_graph()
    saved = graph._get_control_flow_context()
    graph._set_control_flow_context(None)
    try:
        with graph.as_default(), graph.control_dependencies(None):
            yield
    finally:
        graph._set_control_flow_context(saved)


def cast(x: Any, dtype: dtypes_lib.DType) -> Any:
    """``math_ops.cast`` (a Tensor already of ``dtype`` comes back unchanged)."""
    from graphcore.ops import math_ops

    return math_ops.cast(x, dtype)


class _RefVariableProcessor:
    """Updates a Variable: ``_apply_dense`` then its constraint, if any; an IndexedSlices
    gradient goes to ``_apply_sparse_duplicate_indices`` (ref variables) or
    ``_resource_apply_sparse_duplicate_indices`` (resource variables), as TF's processors."""

    def __init__(self, v: Variable):
        self._v = v

    def target(self) -> ops_lib.Tensor:
        return self._v._ref()

    def update_op(self, optimizer: Optimizer, g: Any) -> Any:
        if isinstance(g, IndexedSlices):
            if self._v.constraint is not None:
                raise RuntimeError("Cannot use a constraint function on a sparse variable.")
            if resource_variable_ops.is_resource_variable(self._v):
                return optimizer._resource_apply_sparse_duplicate_indices(g.values, self._v,
                                                                          g.indices)
            return optimizer._apply_sparse_duplicate_indices(g, self._v)
        update_op = optimizer._apply_dense(g, self._v)
        if self._v.constraint is not None:
            with ops_lib.control_dependencies([update_op]):
                return self._v.assign(self._v.constraint(self._v))
        return update_op


class _TensorProcessor:
    """A Tensor in var_list: gradients can be computed, but it cannot be updated."""

    def __init__(self, v: ops_lib.Tensor):
        self._v = v

    def target(self) -> ops_lib.Tensor:
        return self._v

    def update_op(self, optimizer: Optimizer, g: Any) -> Any:
        raise NotImplementedError("Trying to update a Tensor ", self._v)


def _get_processor(v: Any) -> Any:
    if isinstance(v, Variable):
        return _RefVariableProcessor(v)
    if isinstance(v, ops_lib.Tensor):
        return _TensorProcessor(v)
    raise NotImplementedError("Trying to optimize unsupported type ", v)


class Optimizer:
    """Base class of the optimizers; subclasses define ``_create_slots``, ``_prepare``,
    ``_apply_dense`` and optionally ``_finish``."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool, name: str):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots: dict[str, dict[tuple, Variable]] = {}
        self._non_slot_dict: dict[tuple, Variable] = {}

    def get_name(self) -> str:
        return self._name

    # -- the three steps ----------------------------------------------------------------
    def minimize(self, loss: Any, global_step: Any = None, var_list: Any = None,
                 gate_gradients: int = GATE_OP, aggregation_method: Any = None,
                 colocate_gradients_with_ops: bool = False, name: str | None = None,
                 grad_loss: Any = None) -> ops_lib.Operation:
        """Adds ops that update ``var_list`` (default: the trainable variables) to
        minimize ``loss``, and increment ``global_step`` when given."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do "
                f"not support gradients, between variables {[str(v) for _, v in grads_and_vars]}"
                f" and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss: Any, var_list: Any = None,
                          gate_gradients: int = GATE_OP, aggregation_method: Any = None,
                          colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> list[tuple[Any, Any]]:
        """(gradient, variable) pairs for ``loss``; the gradient is None where the
        variable does not affect the loss."""
        from graphcore.ops import gradients_impl

        if callable(loss):
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a "
                               "Tensor in graph mode, not a callable.")
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP,
                                  Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, "
                             "Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not "
                             f"{gate_gradients}")
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = trainable_variables() + ops_lib.get_collection(
                ops_lib.GraphKeys.TRAINABLE_RESOURCE_VARIABLES)
        else:
            var_list = _flatten(var_list)
        processors = [_get_processor(v) for v in var_list]
        if not var_list:
            raise ValueError("No variables to optimize.")
        var_refs = [p.target() for p in processors]
        grads = gradients_impl.gradients(
            loss, var_refs, grad_ys=grad_loss,
            gate_gradients=(gate_gradients == Optimizer.GATE_OP),
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = control_flow_ops.tuple(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None,
                        name: str | None = None) -> ops_lib.Operation:
        """The op applying each (gradient, variable) pair (pairs with a None gradient are
        skipped); with ``global_step``, it also increments the step after the updates."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for g, v in grads_and_vars:
            if g is not None:
                try:
                    g = convert_to_tensor_or_indexed_slices(g)
                except TypeError:
                    raise TypeError("Gradient must be convertible to a Tensor or "
                                    f"IndexedSlices, or None: {g}") from None
            converted.append((g, v, _get_processor(v)))
        var_list = [v for g, v, _ in converted if g is not None]
        if not var_list:
            raise ValueError("No gradients provided for any variable: "
                             f"{[str(v) for _, v, _ in converted]}.")
        with init_scope():
            self._create_slots(var_list)
        update_ops = []
        with ops_lib.name_scope(name, self._name) as name:
            self._prepare()
            for grad, var, processor in converted:
                if grad is None:
                    continue
                scope_name = var.op.name
                with ops_lib.name_scope("update_" + scope_name), ops_lib.colocate_with(var):
                    update_ops.append(processor.update_op(self, grad))
            if global_step is None:
                apply_updates = self._finish(update_ops, name)
            else:
                with ops_lib.control_dependencies([self._finish(update_ops, "update")]):
                    with ops_lib.colocate_with(global_step):
                        apply_updates = state_ops.assign_add(global_step, 1, name=name)
            if isinstance(apply_updates, ops_lib.Tensor):
                apply_updates = apply_updates.op
            train_op = ops_lib.get_collection_ref(ops_lib.GraphKeys.TRAIN_OP)
            if apply_updates not in train_op:
                train_op.append(apply_updates)
            return apply_updates

    # -- slots and other optimizer variables --------------------------------------------
    def get_slot(self, var: Any, name: str) -> Variable | None:
        """The slot ``name`` of ``var`` (None if there is none)."""
        named_slots = self._slots.get(name, None)
        if not named_slots:
            return None
        return named_slots.get(_var_key(var), None)

    def get_slot_names(self) -> list[str]:
        """The sorted names of the slots this optimizer creates."""
        return sorted(self._slots.keys())

    def variables(self) -> list[Variable]:
        """The optimizer's variables in the default graph (slots and non-slot variables
        such as Adam's beta powers), sorted by name."""
        current_graph = ops_lib.get_default_graph()
        found = [v for v in self._non_slot_variables() if v.op.graph is current_graph]
        for variable_dict in self._slots.values():
            for slot in variable_dict.values():
                if slot.op.graph is current_graph:
                    found.append(slot)
        return sorted(found, key=lambda v: v.name)

    def _create_non_slot_variable(self, initial_value: Any, name: str,
                                  colocate_with: Any) -> Variable:
        """A non-trainable variable ``name`` (one per graph), colocated with
        ``colocate_with``."""
        graph = colocate_with.graph
        key = (name, graph)
        v = self._non_slot_dict.get(key, None)
        if v is None:
            with ops_lib.colocate_with(colocate_with):
                v = Variable(initial_value, name=name, trainable=False,
                             use_resource=resource_variable_ops.is_resource_variable(
                                 colocate_with))
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name: str, graph: Any = None) -> Variable | None:
        return self._non_slot_dict.get((name, graph), None)

    def _non_slot_variables(self) -> list[Variable]:
        return list(self._non_slot_dict.values())

    def _trackable_children(self) -> dict[str, Variable]:
        """Checkpoint dependencies (tf.train.Checkpoint): the default graph's non-slot
        variables by name; slot variables are saved through ``get_slot``."""
        graph = ops_lib.get_default_graph()
        return {name: v for (name, g), v in sorted(self._non_slot_dict.items(),
                                                   key=lambda item: item[0][0])
                if g is graph}

    def _assert_valid_dtypes(self, tensors: list) -> None:
        valid_dtypes = self._valid_dtypes()
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in valid_dtypes:
                raise ValueError(f"Invalid type {dtype!r} for {t.name}, expected: "
                                 f"{sorted(valid_dtypes, key=lambda d: d.name)}.")

    def _valid_dtypes(self) -> set:
        return {dtypes_lib.float16, dtypes_lib.bfloat16, dtypes_lib.float32,
                dtypes_lib.float64}

    # -- for subclasses -----------------------------------------------------------------
    def _create_slots(self, var_list: list) -> None:
        pass

    def _prepare(self) -> None:
        pass

    def _apply_dense(self, grad: ops_lib.Tensor, var: Variable) -> Any:
        raise NotImplementedError()

    def _apply_sparse(self, grad: Any, var: Variable) -> Any:
        raise NotImplementedError()

    def _resource_apply_sparse(self, grad: Any, handle: Any, indices: Any) -> Any:
        raise NotImplementedError()

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Variable) -> Any:
        """``_apply_sparse`` of ``grad`` with its repeated indices summed into one row."""
        summed_values, unique_indices = _deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(indices=unique_indices, values=summed_values,
                                                dense_shape=grad.dense_shape), var)

    def _resource_apply_sparse_duplicate_indices(self, grad: Any, handle: Any,
                                                 indices: Any) -> Any:
        """``_resource_apply_sparse`` with repeated indices summed into one row."""
        summed_grad, unique_indices = _deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed_grad, handle, unique_indices)

    def _finish(self, update_ops: list, name_scope: str) -> ops_lib.Operation:
        return control_flow_ops.group(*update_ops, name=name_scope)

    def _slot_dict(self, slot_name: str) -> dict:
        named_slots = self._slots.get(slot_name, None)
        if named_slots is None:
            named_slots = {}
            self._slots[slot_name] = named_slots
        return named_slots

    def _get_or_make_slot(self, var: Any, val: Any, slot_name: str, op_name: str) -> Variable:
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_slot(var, val, op_name)
        return named_slots[_var_key(var)]

    def _get_or_make_slot_with_initializer(self, var: Any, initializer: Any, shape: Any,
                                           dtype: Any, slot_name: str,
                                           op_name: str) -> Variable:
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_slot_with_initializer(
                var, initializer, shape, dtype, op_name)
        return named_slots[_var_key(var)]

    def _zeros_slot(self, var: Any, slot_name: str, op_name: str) -> Variable:
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_zeros_slot(var, op_name)
        return named_slots[_var_key(var)]

    def _call_if_callable(self, param: Any) -> Any:
        return param() if callable(param) else param

