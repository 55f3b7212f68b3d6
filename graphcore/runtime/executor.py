"""Executing one partition: a plan compiled once, run every step.

Compilation (per cached plan) resolves each node's kernel from the kernel registry,
builds it, and lays out a flat value table: every output gets a slot, every input is
a slot index.  A step then walks the instruction list in order (the sequential
executor, cheapest per node) or, with an inter-op pool, runs ready nodes in
parallel by dependency counting.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Executor
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors
from graphcore.kernels import registry as kernel_registry
from graphcore.kernels.registry import DEAD
from graphcore.protobuf import graph_pb2, step_stats_pb2
from graphcore.runtime.devices import Device
from graphcore.runtime.graph_view import NodeInfo
from graphcore.runtime.rendezvous import Rendezvous


class Step:
    """The per-step context some kernels see: feeds, fetches, rendezvous, stats."""

    __slots__ = ("args", "retvals", "rendezvous", "step_id")

    def __init__(self, args: list, n_retvals: int, rendezvous: Rendezvous | None,
                 step_id: int = 0):
        self.args = args
        self.retvals: list[Any] = [None] * n_retvals
        self.rendezvous = rendezvous
        self.step_id = step_id


class _Instr:
    __slots__ = ("fn", "ins", "out", "nout", "deref", "needs_step", "name", "op",
                 "node_def", "consumers", "n_deps", "ctrl")

    def __init__(self) -> None:
        self.consumers: list[int] = []
        self.n_deps = 0


# Merge decides its own deadness; _Send/_Retval must pass a dead value on.
_ACCEPTS_DEAD = frozenset({"Merge", "RefMerge"})
_FORWARDS_DEAD = frozenset({"_Send", "_Retval"})


def _deref(value: Any) -> Any:
    return value.read() if hasattr(value, "read") else value


class PartitionExecutor:
    """A partition GraphDef compiled for one device."""

    def __init__(self, graph_def: graph_pb2.GraphDef, device: Device, resources: Any,
                 node_infos: dict[str, NodeInfo], rendezvous_slots: dict[str, int],
                 device_context: Any = None, dead_aware: bool = False):
        self.device = device
        # Plans with Switch ops carry dead tensors: every step then runs the full,
        # deadness-checking loop (``run_full``).
        self.dead_aware = dead_aware
        self.graph_def = graph_def
        self.rendezvous_slots = rendezvous_slots
        slots: dict[tuple[str, int], int] = {}
        n_slots = 0
        instrs: list[_Instr] = []
        index_of: dict[str, int] = {}
        for nd in graph_def.node:
            info = node_infos.get(nd.name) or NodeInfo(nd, _registration(nd.op), 0)
            kdef = kernel_registry.find_kernel(nd.op, device.device_type, dict(nd.attr))
            if kdef is None:
                raise errors.InvalidArgumentError(
                    nd, None, f"No {device.device_type} kernel for op {nd.op} "
                              f"(node {nd.name})")
            ctx = kernel_registry.KernelContext(nd, device.name, device.device_type,
                                                resources, info.input_types,
                                                info.output_types, device_context,
                                                rendezvous_slots)
            try:
                fn = kdef.factory(ctx)
            except errors.OpError:
                raise
            except Exception as e:
                raise errors.InvalidArgumentError(
                    nd, None, f"Could not build kernel for node {nd.name} ({nd.op}): {e}") \
                    from None
            ins: list[int] = []
            deref: list[bool] = []
            deps: set[int] = set()
            ctrl: list[int] = []
            for pos, inp in enumerate(nd.input):
                if inp.startswith("^"):
                    deps.add(index_of[inp[1:]])
                    ctrl.append(index_of[inp[1:]])
                    continue
                src, sep, idx = inp.rpartition(":")
                if not (sep and idx.isdigit()):
                    src, idx = inp, "0"
                ins.append(slots[(src, int(idx))])
                deps.add(index_of[src])
                producer = node_infos.get(src)
                producer_ref = producer is not None and \
                    producer.output_types[int(idx)]._is_ref_dtype
                consumer_ref = info.input_is_ref[pos] if pos < len(info.input_is_ref) else False
                deref.append(producer_ref and not consumer_ref)
            instr = _Instr()
            instr.fn = fn
            instr.ins = tuple(ins)
            instr.out = n_slots
            instr.nout = len(info.output_types)
            instr.deref = tuple(deref) if any(deref) else None
            instr.needs_step = kdef.needs_step
            instr.name = nd.name
            instr.op = nd.op
            instr.node_def = nd
            instr.n_deps = len(deps)
            instr.ctrl = tuple(ctrl)
            for d in deps:
                instrs[d].consumers.append(len(instrs))
            if (nd.op == "Identity" and instr.deref is None and not info.input_is_ref[0]
                    and not dead_aware):
                # An Identity shares its input's slot: in-order runs skip it entirely.
                instr.out = instr.ins[0]
                slots[(nd.name, 0)] = instr.out
            else:
                for i in range(instr.nout):
                    slots[(nd.name, i)] = n_slots + i
                n_slots += instr.nout
            index_of[nd.name] = len(instrs)
            instrs.append(instr)
        self._instrs = instrs
        self._n_slots = n_slots
        self._compile_sequential()

    def _compile_sequential(self) -> None:
        """The in-order program: constants pre-filled in a template value table, step
        arguments written straight into their slots, results read straight from
        theirs, and NoOps and Identities dropped (list order already honours every
        control edge). The hot loop reads plain tuples."""
        template: list[Any] = [None] * self._n_slots
        program = []
        program_index = []
        self._arg_slots: list[tuple[int, int]] = []
        self._retval_slots: list[tuple[int, int, bool]] = []
        self._retval_instr: dict[int, int] = {}
        for k, instr in enumerate(self._instrs):
            op = instr.op
            if op == "Const":
                template[instr.out] = instr.fn()[0]
            elif op == "_Arg":
                self._arg_slots.append((instr.out, instr.node_def.attr["index"].i))
            elif op == "_Retval":
                index = instr.node_def.attr["index"].i
                self._retval_slots.append((index, instr.ins[0], instr.deref is not None))
                self._retval_instr[index] = k
            elif op == "NoOp" or (op == "Identity" and instr.out == instr.ins[0]):
                continue
            else:
                program.append((instr.fn, instr.ins, instr.out, instr.nout, instr.deref,
                                instr.needs_step))
                program_index.append(k)
        self._template = template
        self._program = program
        self._program_index = program_index

    # -- running ----------------------------------------------------------------------
    def run(self, step: Step) -> None:
        """Runs the partition's nodes once, in order."""
        vals = self._template.copy()
        args = step.args
        for slot, index in self._arg_slots:
            vals[slot] = args[index]
        pos = -1
        try:
            for fn, ins, out, nout, deref, needs_step in self._program:
                pos += 1
                if deref is None:
                    res = fn(step, *[vals[i] for i in ins]) if needs_step \
                        else fn(*[vals[i] for i in ins])
                else:
                    args = [_deref(vals[i]) if d else vals[i] for i, d in zip(ins, deref)]
                    res = fn(step, *args) if needs_step else fn(*args)
                if nout:
                    vals[out:out + nout] = res
        except BaseException as e:
            k = self._program_index[pos] if pos >= 0 else 0
            raise self._node_error(k, e) from None
        retvals = step.retvals
        for index, slot, deref_value in self._retval_slots:
            try:
                retvals[index] = _deref(vals[slot]) if deref_value else vals[slot]
            except BaseException as e:
                raise self._node_error(self._retval_instr[index], e) from None

    def run_full(self, step: Step, stats: step_stats_pb2.DeviceStepStats | None = None
                 ) -> None:
        """Runs every node in order (none skipped), propagating dead tensors (a node
        with a dead input or dead control input is dead; Merge takes its live input)
        and, with ``stats``, recording a NodeExecStats per node (FULL_TRACE)."""
        vals: list[Any] = [None] * self._n_slots
        dead = [False] * len(self._instrs)
        thread_id = threading.get_ident() & 0x7FFFFFFF
        k = -1
        try:
            for instr in self._instrs:
                k += 1
                start = time.time()
                t0 = time.perf_counter()
                args = [vals[i] for i in instr.ins]
                op = instr.op
                is_dead = any(dead[c] for c in instr.ctrl)
                if not is_dead and op not in _ACCEPTS_DEAD:
                    is_dead = any(a is DEAD for a in args)
                if is_dead and op not in _FORWARDS_DEAD:
                    dead[k] = True
                    if instr.nout:
                        vals[instr.out:instr.out + instr.nout] = [DEAD] * instr.nout
                    continue
                if instr.deref is not None:
                    args = [_deref(a) if d and a is not DEAD else a
                            for a, d in zip(args, instr.deref)]
                res = instr.fn(step, *args) if instr.needs_step else instr.fn(*args)
                if instr.nout:
                    vals[instr.out:instr.out + instr.nout] = res
                    if op in _ACCEPTS_DEAD and res[0] is DEAD:
                        dead[k] = True
                if stats is not None:
                    elapsed = int((time.perf_counter() - t0) * 1e6)
                    _record(stats, instr, start, elapsed, res if instr.nout else (), thread_id)
            for index, value in enumerate(step.retvals):
                if value is DEAD:
                    raise errors.InvalidArgumentError(
                        None, None, f"Retval[{index}] does not have value (it is on an untaken "
                                    "branch of a cond)")
        except BaseException as e:
            raise self._node_error(max(k, 0), e) from None

    def run_traced(self, step: Step, stats: step_stats_pb2.DeviceStepStats) -> None:
        self.run_full(step, stats)

    def run_parallel(self, step: Step, pool: Executor) -> None:
        """Runs ready nodes concurrently on ``pool`` (dependency counting)."""
        instrs = self._instrs
        vals: list[Any] = [None] * self._n_slots
        pending = [i.n_deps for i in instrs]
        lock = threading.Lock()
        done = threading.Event()
        remaining = [len(instrs)]
        failure: list[BaseException] = []

        def run_one(k: int) -> None:
            if failure:
                return
            instr = instrs[k]
            try:
                if instr.deref is None:
                    args = [vals[i] for i in instr.ins]
                else:
                    args = [_deref(vals[i]) if d else vals[i]
                            for i, d in zip(instr.ins, instr.deref)]
                res = instr.fn(step, *args) if instr.needs_step else instr.fn(*args)
                if instr.nout:
                    vals[instr.out:instr.out + instr.nout] = res
            except BaseException as e:
                with lock:
                    if not failure:
                        failure.append(self._node_error(k, e))
                if step.rendezvous is not None:
                    step.rendezvous.abort(e)
                done.set()
                return
            ready = []
            with lock:
                for c in instr.consumers:
                    pending[c] -= 1
                    if pending[c] == 0:
                        ready.append(c)
                remaining[0] -= 1
                if remaining[0] == 0:
                    done.set()
            for c in ready[1:]:
                pool.submit(run_one, c)
            if ready:
                run_one(ready[0])

        if not instrs:
            return
        for k in [k for k, n in enumerate(pending) if n == 0]:
            pool.submit(run_one, k)
        done.wait()
        if failure:
            raise failure[0]

    def _node_error(self, k: int, e: BaseException) -> BaseException:
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            return e
        instr = self._instrs[k]
        return node_error(instr.node_def, e)


def node_error(node_def: Any, e: BaseException) -> errors.OpError:
    """``e`` raised by the kernel of ``node_def`` as an OpError naming the node."""
    if isinstance(e, errors.OpError):
        if e.node_def is not None and getattr(e, "_node_named", False):
            return e
        cls: type = type(e)
        message = e.message
    elif isinstance(e, MemoryError):
        cls, message = errors.ResourceExhaustedError, f"OOM: {e}"
    elif isinstance(e, NotImplementedError):
        cls, message = errors.UnimplementedError, str(e)
    else:
        cls, message = errors.InvalidArgumentError, f"{type(e).__name__}: {e}"
    err = cls(node_def, None, f"{message}\n\t [[{{{{node {node_def.name}}}}} = {node_def.op}]]")
    err._node_named = True
    return err


def _registration(op_type: str) -> Any:
    from graphcore.framework import op_registry

    return op_registry.get(op_type)


def _record(stats: step_stats_pb2.DeviceStepStats, instr: _Instr, start: float,
            elapsed_us: int, outputs: Any, thread_id: int) -> None:
    ns = stats.node_stats.add()
    ns.node_name = instr.name
    ns.all_start_micros = int(start * 1e6)
    ns.op_start_rel_micros = 0
    ns.op_end_rel_micros = elapsed_us
    ns.all_end_rel_micros = elapsed_us
    ns.thread_id = thread_id
    inputs = [i for i in instr.node_def.input if not i.startswith("^")]
    ns.timeline_label = f"{instr.name} = {instr.op}({', '.join(inputs)})"
    for slot, value in enumerate(outputs):
        out = ns.output.add()
        out.slot = slot
        value = _deref(value) if hasattr(value, "read") else value
        arr = value if isinstance(value, np.ndarray) else None
        if arr is None and isinstance(value, np.generic):
            arr = np.asarray(value)
        if arr is not None:
            desc = out.tensor_description
            try:
                desc.dtype = dtypes_lib.as_dtype(arr.dtype).as_datatype_enum
            except TypeError:
                pass
            for d in arr.shape:
                desc.shape.dim.add(size=d)
            desc.allocation_description.requested_bytes = arr.nbytes
            desc.allocation_description.allocated_bytes = arr.nbytes
            desc.allocation_description.allocator_name = "cpu"
