"""``tf.train.SyncReplicasOptimizer``: synchronous data-parallel training.

As in TF1, each variable gets a ConditionalAccumulator (TF's op names and semantics:
``ConditionalAccumulator``, ``AccumulatorApplyGradient``, ``AccumulatorNumAccumulated``,
``AccumulatorSetGlobalStep``, ``AccumulatorTakeGradient``) on the variable's device.
Every replica's train op adds its gradients, stamped with the global step it computed
them at (its ``local_step``); gradients older than the accumulator's global step are
dropped as stale.  Once ``replicas_to_aggregate`` gradients are in, the chief takes
their average from every accumulator, applies it with the wrapped optimizer, and
increments the global step once.

The difference from TF: TF drives the aggregation from a chief queue runner thread and
makes replicas wait on a FIFOQueue of sync tokens.  Here the hook of
``make_session_run_hook(is_chief)`` does both from the client, after each step: the
chief waits until every accumulator holds ``replicas_to_aggregate`` gradients and runs
the aggregation op; other replicas wait until the global step has moved past the step
they contributed to (their token).  That step is the ``local_step`` their gradients
were stamped with, fetched from the train step itself: a separate fetch of the global
step in the same run is unordered against the chief's update (it may read the step
after the one the gradients went into, and the replica would then wait for an update
that needs its own next contribution).  A replica whose step requested a stop (e.g.
``StopAtStepHook`` ran first) does not wait: the others stop at the same global step.
So ``get_chief_queue_runner`` and ``get_init_tokens_op`` do not exist, and the hook is
required (as in TF).  With ``total_num_replicas`` < ``replicas_to_aggregate`` (one
replica contributing several gradients per update, TF's extra initial tokens) the chief
does not wait: it aggregates whenever enough gradients are in.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import numpy as np

from graphcore.framework import common_shapes, errors, op_registry
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.ops import accumulator_ops, array_ops, control_flow_ops, math_ops
from graphcore.train import session_run_hook
from graphcore.train.optimizer import Optimizer

# ConditionalAccumulator is tf.ConditionalAccumulator in TF (top level), not tf.train.
__all__ = ["SyncReplicasOptimizer"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs

# -- ops -------------------------------------------------------------------------------
# OpDefs as TF's (only ConditionalAccumulator is marked stateful; the others act on the
# ref handle).

op_registry.register_op("ConditionalAccumulator").output("handle: Ref(string)") \
    .attr("dtype: numbertype").attr("shape: shape").attr("container: string = ''") \
    .attr("shared_name: string = ''").attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'") \
    .stateful().shape_fn(lambda op: [shape_lib.TensorShape([2])])

op_registry.register_op("AccumulatorNumAccumulated").input("handle: Ref(string)") \
    .output("num_accumulated: int32").shape_fn(common_shapes.scalar_shape)

op_registry.register_op("AccumulatorSetGlobalStep").input("handle: Ref(string)") \
    .input("new_global_step: int64").shape_fn(lambda op: [])

op_registry.register_op("AccumulatorApplyGradient").input("handle: Ref(string)") \
    .input("local_step: int64").input("gradient: dtype").attr("dtype: numbertype") \
    .shape_fn(lambda op: [])

op_registry.register_op("AccumulatorTakeGradient").input("handle: Ref(string)") \
    .input("num_required: int32").output("average: dtype").attr("dtype: numbertype") \
    .shape_fn(lambda op: [shape_lib.unknown_shape()])


class _AccumulatorState:
    """One accumulator: the running sum of the gradients of the current global step."""

    def __init__(self, name: str, dtype: np.dtype, shape: tuple | None, reduction: str):
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.reduction = reduction
        self.cond = threading.Condition()
        self.sum: np.ndarray | None = None
        self.count = 0
        self.global_step = 0

    def apply(self, local_step: int, grad: np.ndarray) -> None:
        grad = np.asarray(grad)
        if self.shape is not None and grad.shape != self.shape:
            raise errors.InvalidArgumentError(
                None, None, f"Shape mismatch: expected {list(self.shape)}, got "
                            f"{list(grad.shape)} for accumulator {self.name}")
        with self.cond:
            if local_step < self.global_step:
                _log.info("Dropping a stale gradient for %s: local_step %d < global_step %d",
                          self.name, local_step, self.global_step)
                return
            if self.sum is not None and self.sum.shape != grad.shape:
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch: expected {list(self.sum.shape)}, got "
                                f"{list(grad.shape)} for accumulator {self.name}")
            self.sum = grad.astype(self.dtype, copy=True) if self.sum is None else \
                self.sum + grad
            self.count += 1
            self.cond.notify_all()

    def take(self, num_required: int) -> np.ndarray:
        if num_required < 1:
            raise errors.InvalidArgumentError(
                None, None, f"Argument num_required must be positive, but was {num_required}")
        with self.cond:
            while self.count < num_required:  # blocks as TF does
                self.cond.wait(0.1)
            out = self.sum / self.count if self.reduction == "MEAN" else self.sum
            out = np.asarray(out, dtype=self.dtype)
            self.sum, self.count = None, 0
            self.global_step += 1
            return out

    def set_global_step(self, step: int) -> None:
        with self.cond:
            if step < self.global_step:
                _log.warning("Attempt to set the global step of %s to %d, smaller than %d",
                             self.name, step, self.global_step)
            self.global_step = step


_states_lock = threading.Lock()


@register_kernel("ConditionalAccumulator")
def _conditional_accumulator(ctx: KernelContext):
    attr = ctx.node_def.attr
    shape = attr["shape"].shape
    declared = None if shape.unknown_rank or any(d.size < 0 for d in shape.dim) else \
        tuple(d.size for d in shape.dim)
    key = (attr["container"].s.decode(), attr["shared_name"].s.decode() or ctx.name)
    dtype = ctx.attr("dtype").as_numpy_dtype
    reduction = attr["reduction_type"].s.decode() or "MEAN"
    resources = ctx.resources

    def compute():
        # Shared by name within the task, as TF's resource manager shares them.
        with _states_lock:
            table = getattr(resources, "_accumulators", None)
            if table is None:
                table = resources._accumulators = {}
            state = table.get(key)
            if state is None:
                state = table[key] = _AccumulatorState(key[1], dtype, declared, reduction)
        return (state,)

    return compute


@register_kernel("AccumulatorApplyGradient")
def _accumulator_apply_gradient(ctx: KernelContext):
    def compute(state, local_step, gradient):
        state.apply(int(local_step), gradient)
        return ()

    return compute


@register_kernel("AccumulatorTakeGradient")
def _accumulator_take_gradient(ctx: KernelContext):
    def compute(state, num_required):
        return (state.take(int(num_required)),)

    return compute


@register_kernel("AccumulatorNumAccumulated")
def _accumulator_num_accumulated(ctx: KernelContext):
    def compute(state):
        with state.cond:
            return (np.int32(state.count),)

    return compute


@register_kernel("AccumulatorSetGlobalStep")
def _accumulator_set_global_step(ctx: KernelContext):
    def compute(state, new_global_step):
        state.set_global_step(int(new_global_step))
        return ()

    return compute


class ConditionalAccumulator(accumulator_ops.ConditionalAccumulatorBase):
    """TF's ``tf.ConditionalAccumulator``: aggregates gradients of one shape, dropping
    those computed at a global step older than its own."""

    _NUM_ACCUMULATED = "AccumulatorNumAccumulated"
    _SET_GLOBAL_STEP = "AccumulatorSetGlobalStep"

    def __init__(self, dtype: Any, shape: Any = None, shared_name: str | None = None,
                 name: str = "conditional_accumulator", reduction_type: str = "MEAN"):
        dtype = dtypes_lib.as_dtype(dtype)
        shape = shape_lib.TensorShape(shape)
        accumulator_ref = apply_op(
            "ConditionalAccumulator", name=name, dtype=dtype,
            shape=shape.as_proto(), shared_name=shared_name or "",
            reduction_type=reduction_type).outputs[0]
        super().__init__(dtype, shape, accumulator_ref)
        self._name = accumulator_ref.op.name

    def apply_grad(self, grad: Any, local_step: Any = 0, name: str | None = None) -> Any:
        grad = convert_to_tensor(grad, dtype=self._dtype)
        grad.get_shape().assert_is_compatible_with(self._shape)
        local_step = math_ops.cast(convert_to_tensor(local_step), dtypes_lib.int64)
        return apply_op("AccumulatorApplyGradient", name=name, handle=self._accumulator_ref,
                        local_step=local_step, gradient=grad)

    def take_grad(self, num_required: Any, name: str | None = None) -> ops_lib.Tensor:
        out = apply_op("AccumulatorTakeGradient", name=name, handle=self._accumulator_ref,
                       num_required=num_required, dtype=self._dtype).outputs[0]
        out.set_shape(self._shape)
        return out


# -- the optimizer ---------------------------------------------------------------------


class SyncReplicasOptimizer(Optimizer):
    """Aggregates ``replicas_to_aggregate`` gradients (their mean) before one update
    by ``opt``; the global step advances once per update.  See the module docstring for
    how the waiting is done without TF's queue runner and token queue."""

    def __init__(self, opt: Optimizer, replicas_to_aggregate: int,
                 total_num_replicas: int | None = None, variable_averages: Any = None,
                 variables_to_average: Any = None, use_locking: bool = False,
                 name: str = "sync_replicas"):
        if variable_averages is not None or variables_to_average is not None:
            raise NotImplementedError("SyncReplicasOptimizer(variable_averages=...) is not "
                                      "supported")
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        self._opt = opt
        self._replicas_to_aggregate = int(replicas_to_aggregate)
        self._total_num_replicas = int(total_num_replicas)
        self._gradients_applied = False
        self._global_step = None
        self._local_step = None
        self._accumulators: list[ConditionalAccumulator] = []
        self._aggregate_op = None
        self._num_accumulated = None
        _log.info("SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s",
                  replicas_to_aggregate, total_num_replicas)

    def compute_gradients(self, *args: Any, **kwargs: Any) -> list:
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None,
                        name: str | None = None) -> ops_lib.Operation:
        """The replica's train op: adds its gradients to the accumulators.  Also builds
        the chief's aggregation (take the averages, apply them with the wrapped
        optimizer, advance the global step)."""
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        if self._gradients_applied:
            raise ValueError("apply_gradients should be called only once")
        self._global_step = global_step
        grads_and_vars = [(g, v) for g, v in grads_and_vars if g is not None]
        train_ops = []
        aggregated = []
        with ops_lib.name_scope(name or self._name):
            # The replica's local step: the global step its gradients are computed at
            # (read in the same step).  A copy, not an identity: the identity of a ref
            # variable aliases it (as in TF), and the hook must fetch the value the
            # gradients were stamped with, not the step at the end of the run.
            local_step = math_ops.add(global_step, np.zeros((), global_step.dtype
                                                            .base_dtype.as_numpy_dtype),
                                      name="local_step")
            self._local_step = local_step
            for grad, var in grads_and_vars:
                with ops_lib.device(var.device):
                    acc = ConditionalAccumulator(
                        grad.dtype, shape=var.get_shape(),
                        shared_name=var.op.name + "/grad_accum")
                    train_ops.append(acc.apply_grad(grad, local_step=local_step))
                    aggregated.append(acc.take_grad(self._replicas_to_aggregate))
                    self._accumulators.append(acc)
            with ops_lib.control_dependencies(train_ops):
                self._train_op = control_flow_ops.no_op(name="train_op")
            with ops_lib.device(global_step.device):
                self._num_accumulated = math_ops.reduce_min(
                    array_ops.stack([acc.num_accumulated() for acc in self._accumulators]),
                    name="num_accumulated")
            update_op = self._opt.apply_gradients(
                list(zip(aggregated, [v for _, v in grads_and_vars])),
                global_step=global_step)
            with ops_lib.control_dependencies([update_op]):
                new_step = array_ops.identity(global_step)
                sets = []
                for acc, (_, var) in zip(self._accumulators, grads_and_vars):
                    with ops_lib.device(var.device):
                        sets.append(acc.set_global_step(new_step))
            with ops_lib.control_dependencies(sets):
                self._aggregate_op = control_flow_ops.no_op(name="aggregate")
        self._gradients_applied = True
        return self._train_op

    # -- the hook ---------------------------------------------------------------------
    def make_session_run_hook(self, is_chief: bool, num_tokens: int = -1,
                              poll_secs: float = 0.005,
                              timeout_secs: float = 600.0) -> session_run_hook.SessionRunHook:
        """The hook every replica must run: the chief aggregates once enough gradients
        are in, the others wait for the update their gradients went into."""
        del num_tokens
        return _SyncReplicasOptimizerHook(self, is_chief, poll_secs, timeout_secs)

    def get_chief_queue_runner(self) -> Any:
        raise NotImplementedError("graphcore's SyncReplicasOptimizer has no queue runner: "
                                  "make_session_run_hook(is_chief) does the chief's work")

    def get_init_tokens_op(self, num_tokens: int = -1) -> Any:
        raise NotImplementedError("graphcore's SyncReplicasOptimizer has no token queue: "
                                  "make_session_run_hook(is_chief) does the waiting")

    def get_slot(self, *args: Any, **kwargs: Any) -> Any:
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args: Any, **kwargs: Any) -> list[str]:
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self) -> list:
        return self._opt.variables()


class _SyncReplicasOptimizerHook(session_run_hook.SessionRunHook):
    def __init__(self, opt: SyncReplicasOptimizer, is_chief: bool, poll_secs: float,
                 timeout_secs: float):
        self._opt = opt
        self._is_chief = is_chief
        self._poll = poll_secs
        self._timeout = timeout_secs

    def begin(self) -> None:
        if not self._opt._gradients_applied:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before "
                             "using the hook.")

    def before_run(self, run_context: Any) -> session_run_hook.SessionRunArgs | None:
        if not _runs_train_op(run_context.original_args.fetches, self._opt._train_op):
            return None
        # The step the gradients are stamped with, read in the train step itself.
        return session_run_hook.SessionRunArgs(self._opt._local_step)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if (run_context.stop_requested or run_values.results is None
                or not _runs_train_op(run_context.original_args.fetches, self._opt._train_op)):
            return
        sess = run_context.session
        opt = self._opt
        contributed_at = int(run_values.results)
        deadline = time.monotonic() + self._timeout
        if self._is_chief:
            waits = opt._total_num_replicas >= opt._replicas_to_aggregate
            while int(sess.run(opt._num_accumulated)) < opt._replicas_to_aggregate:
                if not waits:
                    return
                _check(deadline, self._timeout, "gradients from the other replicas")
                time.sleep(self._poll)
            sess.run(opt._aggregate_op)
        else:
            while int(sess.run(opt._global_step)) <= contributed_at:
                _check(deadline, self._timeout, "the chief's aggregated update")
                time.sleep(self._poll)


def _check(deadline: float, timeout: float, what: str) -> None:
    if time.monotonic() > deadline:
        raise errors.DeadlineExceededError(None, None, f"SyncReplicasOptimizer: waited "
                                                       f"{timeout} s for {what}")


def _runs_train_op(fetches: Any, train_op: Any) -> bool:
    if fetches is train_op:
        return True
    if isinstance(fetches, dict):
        return any(_runs_train_op(f, train_op) for f in fetches.values())
    if isinstance(fetches, (list, tuple)):
        return any(_runs_train_op(f, train_op) for f in fetches)
    return False
