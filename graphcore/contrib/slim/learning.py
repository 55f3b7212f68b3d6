"""``slim.learning`` (TF 1.15): ``create_train_op`` with gradient clipping and multipliers,
and ``train``, slim's Supervisor-driven loop running ``train_step_fn`` until
``number_of_steps`` (or an OutOfRangeError), then saving a final checkpoint to ``logdir``.
(``train(sync_optimizer=...)`` is not supported.)"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from graphcore.client import timeline

# ruff: noqa: F401
from graphcore.contrib import training
from graphcore.contrib.training import (
    add_gradients_summaries,
    clip_gradient_norms,
    multiply_gradients,
)
from graphcore.framework import errors
from graphcore.framework import ops as ops_lib
from graphcore.lib.io import file_io
from graphcore.ops import array_ops, control_flow_ops, lookup_ops, math_ops, variables
from graphcore.protobuf import config_pb2
from graphcore.summary import summary_ops
from graphcore.train import training_util
from graphcore.train.optimizer import Optimizer
from graphcore.train.saver import Saver
from graphcore.train.supervisor import Supervisor

__all__ = ["add_gradients_summaries", "clip_gradient_norms", "create_train_op",
           "multiply_gradients", "train", "train_step"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs
_USE_DEFAULT = 0


def create_train_op(total_loss: Any, optimizer: Any, global_step: Any = training._USE_GLOBAL_STEP,
                    update_ops: Any = None, variables_to_train: Any = None,
                    clip_gradient_norm: float = 0, summarize_gradients: bool = False,
                    gate_gradients: int = Optimizer.GATE_OP, aggregation_method: Any = None,
                    colocate_gradients_with_ops: bool = False,
                    gradient_multipliers: dict | None = None,
                    check_numerics: bool = True) -> Any:
    """``tf.contrib.training.create_train_op`` whose gradients are first multiplied by
    ``gradient_multipliers`` and then clipped to ``clip_gradient_norm`` (when > 0)."""
    def transform_grads_fn(grads: list) -> list:
        if gradient_multipliers:
            grads = multiply_gradients(grads, gradient_multipliers)
        if clip_gradient_norm > 0:
            grads = clip_gradient_norms(grads, clip_gradient_norm)
        return grads

    return training.create_train_op(
        total_loss=total_loss, optimizer=optimizer, global_step=global_step,
        update_ops=update_ops, variables_to_train=variables_to_train,
        transform_grads_fn=transform_grads_fn, summarize_gradients=summarize_gradients,
        gate_gradients=gate_gradients, aggregation_method=aggregation_method,
        colocate_gradients_with_ops=colocate_gradients_with_ops,
        check_numerics=check_numerics)


def train_step(sess: Any, train_op: Any, global_step: Any, train_step_kwargs: dict) -> tuple:
    """Runs ``train_op`` once: (its loss, whether ``train_step_kwargs['should_stop']``);
    logs when ``should_log`` and writes a Chrome trace to ``logdir`` when ``should_trace``."""
    start_time = time.time()
    options = run_metadata = None
    if "should_trace" in train_step_kwargs:
        if "logdir" not in train_step_kwargs:
            raise ValueError("logdir must be present in train_step_kwargs when should_trace "
                             "is present")
        if sess.run(train_step_kwargs["should_trace"]):
            options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
            run_metadata = config_pb2.RunMetadata()
    total_loss, np_global_step = sess.run([train_op, global_step], options=options,
                                          run_metadata=run_metadata)
    time_elapsed = time.time() - start_time
    if run_metadata is not None:
        trace = timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format()
        trace_filename = os.path.join(train_step_kwargs["logdir"],
                                      f"tf_trace-{np_global_step}.json")
        _log.info("Writing trace to %s", trace_filename)
        file_io.write_string_to_file(trace_filename, trace)
        if "summary_writer" in train_step_kwargs:
            train_step_kwargs["summary_writer"].add_run_metadata(
                run_metadata, f"run_metadata-{np_global_step}")
    if "should_log" in train_step_kwargs and sess.run(train_step_kwargs["should_log"]):
        _log.info("global step %d: loss = %.4f (%.3f sec/step)", np_global_step, total_loss,
                  time_elapsed)
    should_stop = bool(sess.run(train_step_kwargs["should_stop"])) \
        if "should_stop" in train_step_kwargs else False
    return total_loss, should_stop


def train(train_op: Any, logdir: str | None, train_step_fn: Any = train_step,
          train_step_kwargs: Any = _USE_DEFAULT, log_every_n_steps: int = 1,
          graph: Any = None, master: str = "", is_chief: bool = True, global_step: Any = None,
          number_of_steps: int | None = None, init_op: Any = _USE_DEFAULT,
          init_feed_dict: Any = None, local_init_op: Any = _USE_DEFAULT, init_fn: Any = None,
          ready_op: Any = _USE_DEFAULT, summary_op: Any = _USE_DEFAULT,
          save_summaries_secs: float = 600, summary_writer: Any = _USE_DEFAULT,
          startup_delay_steps: int = 0, saver: Any = None, save_interval_secs: float = 600,
          sync_optimizer: Any = None, session_config: Any = None, session_wrapper: Any = None,
          trace_every_n_steps: int | None = None, ignore_live_threads: bool = False) -> Any:
    """Runs ``train_step_fn(sess, train_op, global_step, kwargs)`` in a Supervisor's managed
    session (initialized, or restored from ``logdir``) until it says stop; returns the last
    loss."""
    if train_op is None:
        raise ValueError("train_op cannot be None.")
    if logdir is None:
        if summary_op != _USE_DEFAULT:
            raise ValueError("Cannot provide summary_op because logdir=None")
        if saver is not None:
            raise ValueError("Cannot provide saver because logdir=None")
        if trace_every_n_steps is not None:
            raise ValueError("Cannot provide trace_every_n_steps because logdir=None")
    if sync_optimizer is not None:
        raise NotImplementedError("slim.learning.train(sync_optimizer=...) is not supported "
                                  "in graphcore; use SyncReplicasOptimizer's "
                                  "make_session_run_hook with MonitoredTrainingSession")
    if number_of_steps is not None and number_of_steps <= 0:
        raise ValueError("`number_of_steps` must be either None or a positive number.")
    graph = graph or ops_lib.get_default_graph()
    with graph.as_default():
        if global_step is None:
            global_step = training_util.get_or_create_global_step()
        saver = saver or Saver()
        with ops_lib.name_scope("init_ops"):
            if init_op == _USE_DEFAULT:
                init_op = variables.global_variables_initializer()
            if ready_op == _USE_DEFAULT:
                ready_op = variables.report_uninitialized_variables()
            if local_init_op == _USE_DEFAULT:
                local_init_op = control_flow_ops.group(variables.local_variables_initializer(),
                                                       lookup_ops.tables_initializer())
        if summary_op == _USE_DEFAULT:
            summary_op = summary_ops.merge_all()
        if summary_writer == _USE_DEFAULT:
            summary_writer = Supervisor.USE_DEFAULT
        if train_step_kwargs == _USE_DEFAULT:
            with ops_lib.name_scope("train_step"):
                train_step_kwargs = {
                    "should_stop": math_ops.greater_equal(global_step, number_of_steps)
                    if number_of_steps else array_ops.constant(False)}
                if log_every_n_steps > 0:
                    train_step_kwargs["should_log"] = math_ops.equal(
                        math_ops.mod(global_step, log_every_n_steps), 0)
                if is_chief and trace_every_n_steps is not None:
                    train_step_kwargs["should_trace"] = math_ops.equal(
                        math_ops.mod(global_step, trace_every_n_steps), 0)
                    train_step_kwargs["logdir"] = logdir
    sv = Supervisor(graph=graph, is_chief=is_chief, logdir=logdir, init_op=init_op,
                    init_feed_dict=init_feed_dict, local_init_op=local_init_op,
                    ready_op=ready_op, summary_op=summary_op, summary_writer=summary_writer,
                    global_step=global_step, saver=saver,
                    save_summaries_secs=save_summaries_secs,
                    save_model_secs=save_interval_secs, init_fn=init_fn)
    if summary_writer is not None:
        train_step_kwargs["summary_writer"] = sv.summary_writer
    total_loss = None
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with sv.managed_session(master, start_standard_services=False,
                                    config=session_config) as sess:
                _log.info("Starting Session.")
                if session_wrapper is not None:
                    sess = session_wrapper(sess)
                if is_chief:
                    if logdir:
                        sv.start_standard_services(sess)
                elif startup_delay_steps > 0:
                    _wait_for_step(sess, global_step,
                                   min(startup_delay_steps, number_of_steps or 2 ** 63 - 1))
                threads = sv.start_queue_runners(sess)
                _log.info("Starting Queues.")
                try:
                    while not sv.should_stop():
                        total_loss, should_stop = train_step_fn(sess, train_op, global_step,
                                                                train_step_kwargs)
                        if should_stop:
                            _log.info("Stopping Training.")
                            sv.request_stop()
                            break
                except errors.OutOfRangeError as e:
                    _log.info("Caught OutOfRangeError. Stopping Training. %s", e)
                if logdir and sv.is_chief:
                    _log.info("Finished training! Saving model to disk.")
                    sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
                    sv.stop(threads, close_summary_writer=True,
                            ignore_live_threads=ignore_live_threads)
        except errors.AbortedError:
            _log.info("Retrying training!")
            should_retry = True
    return total_loss


def _wait_for_step(sess: Any, global_step: Any, step: int) -> None:
    """Waits until the global step reaches ``step`` (a non-chief's startup delay)."""
    while True:
        if training_util.global_step(sess, global_step) >= step:
            break
        _log.info("Waiting for step %d", step)
        time.sleep(1)
