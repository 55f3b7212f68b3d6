"""Executing one partition: a plan compiled once, run every step.

Compilation (per cached plan) resolves each node's kernel from the kernel registry,
builds it, and lays out a flat value table: every output gets a slot, every input is
a slot index.  A step then walks the instruction list in order (the sequential
executor, cheapest per node) or, with an inter-op pool, runs ready nodes in
parallel by dependency counting.
"""

from __future__ import annotations

import collections
import threading
import time
import weakref
from concurrent.futures import Executor
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors
from graphcore.kernels import forwarding
from graphcore.kernels import registry as kernel_registry
from graphcore.kernels.registry import DEAD
from graphcore.protobuf import graph_pb2, step_stats_pb2
from graphcore.runtime.devices import Device
from graphcore.runtime.graph_view import NodeInfo
from graphcore.runtime.rendezvous import Rendezvous, rendezvous_key_from_attrs


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


# Ops that make a plan run on the frame-aware interpreter.
_FRAME_OPS = frozenset({"Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
                        "RefNextIteration"})

# Merge decides its own deadness; _Send/_Retval must pass a dead value on.
_ACCEPTS_DEAD = frozenset({"Merge", "RefMerge"})
_FORWARDS_DEAD = frozenset({"_Send", "_Retval"})


# Plans with more kernels than this run on the table-driven loop (``_run``) rather than
# a generated straight-line function.
_STRAIGHT_LINE_MAX = 20000
FORWARDING = True

# Shape arithmetic (grappler's constant folding of shapes, done per step shape): ops whose
# outputs depend only on their inputs' shapes ...
_SHAPE_OPS = frozenset({"Shape", "ShapeN", "Size", "Rank"})
# ... and pure, deterministic ops whose outputs depend only on their input values.  A node
# of these whose inputs are constants or such values (the gradient's Shape ->
# BroadcastGradientArgs, the Mean gradient's divisor) is computed once per distinct tuple
# of the shapes it derives from, and its value reused by later steps.
_FOLDABLE_OPS = _SHAPE_OPS | frozenset({
    "Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "FloorDiv", "FloorMod", "TruncateDiv",
    "Maximum", "Minimum", "Neg", "Abs", "Cast", "Range", "Prod", "Sum", "Max", "Min", "All",
    "Any", "ExpandDims", "Reshape", "Squeeze", "Pack", "Unpack", "ConcatV2", "Concat",
    "StridedSlice", "Slice", "GatherV2", "Gather", "Fill", "Tile", "Equal", "NotEqual",
    "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot",
    "Select", "SelectV2", "BroadcastGradientArgs", "BroadcastArgs", "BroadcastTo",
    "DynamicStitch", "InvertPermutation", "Transpose", "ZerosLike", "OnesLike", "Identity"})
# Folded values larger than this are recomputed every step rather than kept (grappler's
# constant folding has such a limit too); a memo holds at most _FOLD_KEYS shape tuples.
_FOLD_MAX_BYTES = 1 << 16
_FOLD_KEYS = 64
_SHAPE_PROXY = np.zeros((), np.int8)


def _shape_proxy(shape: tuple) -> np.ndarray:
    """An array of ``shape`` holding no memory: what a folded Shape/Size/Rank reads."""
    return np.broadcast_to(_SHAPE_PROXY, shape)


def _memoize(memo: dict, key: Any, values: tuple) -> tuple:
    """Keeps ``values`` (read-only) under ``key`` when each is a small array."""
    for v in values:
        if not isinstance(v, (np.ndarray, np.generic)) or v.nbytes > _FOLD_MAX_BYTES:
            return values
    for v in values:
        if isinstance(v, np.ndarray):
            v.flags.writeable = False
    if len(memo) >= _FOLD_KEYS:
        memo.clear()
    memo[key] = values
    return values

_K_NORMAL, _K_MERGE, _K_ENTER, _K_EXIT, _K_NEXT, _K_TRIGGER, _K_FORWARDS_DEAD = range(7)
_KINDS = {"Merge": _K_MERGE, "RefMerge": _K_MERGE, "Enter": _K_ENTER, "RefEnter": _K_ENTER,
          "Exit": _K_EXIT, "RefExit": _K_EXIT, "NextIteration": _K_NEXT,
          "RefNextIteration": _K_NEXT, "ControlTrigger": _K_TRIGGER,
          "_Send": _K_FORWARDS_DEAD, "_Recv": _K_FORWARDS_DEAD, "_Retval": _K_FORWARDS_DEAD}


class _Frame:
    """One execution of a loop's frame (per parent frame and parent iteration)."""

    __slots__ = ("parent", "parent_iter", "name", "pending_enters", "outstanding",
                 "n_iters", "invariants", "states", "children", "dead_exits", "live_exits")

    def __init__(self, parent: _Frame | None, parent_iter: int, name: str,
                 pending_enters: int):
        self.parent = parent
        self.parent_iter = parent_iter
        self.name = name
        self.pending_enters = pending_enters
        self.outstanding = 0  # queued nodes of this frame + live child frames
        self.n_iters = 1
        self.invariants: list[tuple[int, Any]] = []
        self.states: dict[tuple[int, int], list] = {}
        self.children: dict[tuple[int, str], _Frame] = {}
        self.dead_exits: set[int] = set()
        self.live_exits: set[int] = set()


def _tuple(items: list[str]) -> str:
    """Python source of a tuple of ``items``."""
    return "(" + "".join(f"{item}, " for item in items) + ")"


def _deref(value: Any) -> Any:
    return value.read() if hasattr(value, "read") else value


class PartitionExecutor:
    """A partition GraphDef compiled for one device."""

    def __init__(self, graph_def: graph_pb2.GraphDef, device: Device, resources: Any,
                 node_infos: dict[str, NodeInfo], rendezvous_slots: dict[str, int],
                 device_context: Any = None, dead_aware: bool = False,
                 function_library: Any = None):
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
        # Plans with while loops run on the frame-aware interpreter (``_run_frames``);
        # their Merges read NextIteration outputs that come later in list order (back
        # edges), so every output gets its slot up front.
        self._has_frames = any(nd.op in _FRAME_OPS for nd in graph_def.node)
        self._frames_program: Any = None
        self._frame_edges: tuple[list, list[bool]] = ([], [])
        if self._has_frames:
            for nd in graph_def.node:
                info = node_infos.get(nd.name) or NodeInfo(nd, _registration(nd.op), 0)
                for i in range(len(info.output_types)):
                    slots[(nd.name, i)] = n_slots + i
                n_slots += len(info.output_types)
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
            ctx.function_library = function_library
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
                if src in index_of:  # (not a loop's back edge)
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
            if self._has_frames:
                instr.out = slots[(nd.name, 0)] if instr.nout else n_slots
            elif (nd.op == "Identity" and instr.deref is None and not info.input_is_ref[0]
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
        control edge). Each entry also names the slots it reads for the last time, which
        the loop clears as TF drops a tensor with its last consumer: memory goes back to
        the allocator while it is warm, and an update finds its variable's value held by
        no one (:meth:`VariableState.value_to_update`). The hot loop reads plain tuples."""
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
                program.append([instr.fn, instr.ins, instr.out, instr.nout, instr.deref,
                                instr.needs_step, ()])
                program_index.append(k)
        kept = {slot for _, slot, _ in self._retval_slots}
        last_read: dict[int, int] = {}
        for pos, entry in enumerate(program):
            for slot in entry[1]:
                last_read[slot] = pos
        for slot, pos in last_read.items():
            if slot not in kept:
                program[pos][6] += (slot,)
        self._template = template
        self._program = [tuple(entry) for entry in program]
        self._program_index = program_index
        self._straight = self._compile_straight_line() \
            if len(program) <= _STRAIGHT_LINE_MAX else None

    def _compile_straight_line(self, waits: dict[int, int] | None = None) -> Any:
        """The in-order program as one generated Python function: every slot a local
        variable, every kernel a call with its inputs named (``s3 = f0(s1, c2)[0]``,
        constants as globals), the slots read for the last time set to None after the
        call, the results stored straight into ``step.retvals``. Per step it does what
        :meth:`_run` does, without the per-node tuple unpacking, argument lists and
        slot-table writes. With ``waits`` (program position of a _Recv -> its rendezvous
        slot) it is a generator that, before such a _Recv, yields the slot for as long
        as the slot has not arrived (see :meth:`suspending`)."""
        consts = {slot for slot, value in enumerate(self._template) if value is not None}
        defined = set(consts) | {slot for slot, _ in self._arg_slots}
        this = weakref.ref(self)  # (no cycle: the plan's constants go with the executor)

        def fail(p: int, e: BaseException) -> BaseException:
            executor = this()
            return e if executor is None else executor._straight_line_error(p, e)

        names: dict[str, Any] = {"_deref": _deref, "_fail": fail, "_shape": np.shape,
                                 "_proxy": _shape_proxy, "_memoize": _memoize}
        body = [f"    s{slot} = args[{index}]" for slot, index in self._arg_slots]
        if waits:
            body.append("    _ready = step.rendezvous.ready")
        folded, frontier = self._shape_folding(consts)

        def ref(slot: int) -> str:
            if slot in consts:
                names[f"c{slot}"] = self._template[slot]
                return f"c{slot}"
            if slot not in defined:  # read before any write: None, as in the slot table
                body.insert(0, f"    s{slot} = None")
                defined.add(slot)
            return f"s{slot}"

        # A folded Shape/Size/Rank keeps only its input's shape, taken right after the
        # input is computed (``r<pos>``), so the input's buffer goes (or is forwarded)
        # with its last kernel reader; each slot is cleared after its last reading line.
        program = self._program
        producer = {out + i: pos for pos, (_, _, out, nout, _, _, _) in enumerate(program)
                    for i in range(nout)}
        captures: dict[int, list[int]] = collections.defaultdict(list)
        last_use: dict[int, int] = {}
        for pos, (_, ins, _, _, _, _, _) in enumerate(program):
            at = pos
            if pos in folded:
                if folded[pos] is None:
                    continue
                at = max((producer.get(i, -1) for i in ins if i not in consts), default=-1)
                captures[at].append(pos)
            for i in ins:
                last_use[i] = max(last_use.get(i, -1), at)
        kept = {slot for _, slot, _ in self._retval_slots}
        clear_at: dict[int, list[int]] = collections.defaultdict(list)
        for slot, at in last_use.items():
            if slot not in kept and slot not in consts:
                clear_at[at].append(slot)
        # Slots a kernel may write its output into when it is their last reader (buffer
        # forwarding, :mod:`graphcore.kernels.forwarding`): those a kernel computes in
        # this step -- not constants, fed values or folded (memoized) values, nor what
        # the step returns; variables' values come through _deref or as refs, which the
        # kernels never forward.
        owned = {slot for slot, pos in producer.items() if pos not in folded} \
            - consts - defined - kept

        def capture_and_clear(at: int) -> None:
            for pos in captures.get(at, ()):
                shapes = [f"_shape({ref(i)})" for i in program[pos][1]]
                body.append(f"    r{pos} = {shapes[0] if folded[pos] else _tuple(shapes)}")
            body.extend(f"    s{i} = None" for i in clear_at.get(at, ()) if i in defined)

        capture_and_clear(-1)
        for pos, (fn, ins, out, nout, deref, needs_step, _) in enumerate(program):
            names[f"f{pos}"] = fn
            if pos in folded:
                if pos in frontier:
                    body.extend(self._fold_call(pos, frontier[pos], folded, names, consts))
                    defined.update(out + i for i in range(nout))
                capture_and_clear(pos)
                continue
            if FORWARDING:
                fn = names[f"f{pos}"] = forwarding.variant(fn, tuple(
                    last_use.get(i) == pos and i in owned and ins.count(i) == 1 and
                    (deref is None or not deref[j]) for j, i in enumerate(ins)))
            inputs = [ref(i) for i in ins]
            if deref is not None:
                inputs = [f"_deref({a})" if d else a for a, d in zip(inputs, deref)]
            call = f"f{pos}({', '.join((['step'] if needs_step else []) + inputs)})"
            body.append(f"    p = {pos}")
            if waits and pos in waits:
                body.append(f"    while not _ready({waits[pos]}): yield {waits[pos]}")
            if nout:
                targets = [f"s{out + i}" for i in range(nout)]
                defined.update(out + i for i in range(nout))
                body.append(f"    {', '.join(targets)}, = {call}")
            else:
                body.append(f"    {call}")
            capture_and_clear(pos)
        body.append("    retvals = step.retvals")
        for index, slot, deref_value in self._retval_slots:
            value = ref(slot)
            body.append(f"    p = {-2 - index}")
            body.append(f"    retvals[{index}] = {'_deref(' + value + ')' if deref_value else value}")
        source = "\n".join(["def straight_line(step, args):", "  p = -1", "  try:"]
                           + ["  " + line for line in body]
                           + (["  except GeneratorExit:", "    raise"] if waits else [])
                           + ["  except BaseException as e:", "    raise _fail(p, e) from None"])
        try:
            exec(compile(source, f"<graphcore plan: {len(self._program)} kernels>", "exec"),
                 names)
        except (SyntaxError, RecursionError, MemoryError):  # pragma: no cover - huge plans
            return None
        return names["straight_line"]

    def suspending(self, slots: frozenset[int]) -> Any:
        """The in-order step as a generator function ``fn(step, args)`` that, where a
        _Recv of one of ``slots`` would wait for its tensor, yields that slot instead
        (again after each resumption, until the tensor is in the step's rendezvous). A
        caller can so run the step on its own thread, suspending it where it waits on
        tensors that caller itself provides. None for plans that need the full loop
        (dead tensors, while loops) or are too large for the straight line, and for
        plans with a _Recv of another slot (it would block the caller's thread)."""
        if self._straight is None or self.dead_aware or self._has_frames:
            return None
        waits: dict[int, int] = {}
        for pos, k in enumerate(self._program_index):
            nd = self._instrs[k].node_def
            if nd.op == "_Recv":
                slot = self.rendezvous_slots.get(rendezvous_key_from_attrs(nd))
                if slot not in slots:
                    return None
                waits[pos] = slot
        if waits:
            return self._compile_straight_line(waits)
        straight = self._straight

        def whole(step: Step, args: list) -> Any:  # (waits on nothing: one go)
            straight(step, args)
            yield from ()

        return whole

    def _shape_folding(self, consts: set[int]) -> tuple[dict[int, Any], dict[int, list]]:
        """Which program entries fold (``_FOLDABLE_OPS``): position -> True for a
        one-input Shape/Size/Rank, False for a ShapeN (its shape-tuple local ``r<pos>``
        holds one shape per input), None for the others; and the frontier: each folded
        entry that a kernel reads, with the folded entries it derives from, in order.
        Values a step returns or sends stay computed (the caller may write to them)."""
        program = self._program
        ops = [self._instrs[k].op for k in self._program_index]
        producer: dict[int, int] = {}
        for pos, (_, _, out, nout, _, _, _) in enumerate(program):
            for i in range(nout):
                producer[out + i] = pos
        shipped = {producer.get(slot) for _, slot, _ in self._retval_slots}
        for pos, entry in enumerate(program):
            if ops[pos] == "_Send":
                shipped.update(producer.get(i) for i in entry[1])
        folded: dict[int, Any] = {}
        for pos, (_, ins, _, nout, deref, needs_step, _) in enumerate(program):
            op = ops[pos]
            if op not in _FOLDABLE_OPS or needs_step or deref is not None or not nout \
                    or pos in shipped:
                continue
            if all(i in consts or producer.get(i) in folded for i in ins):
                folded[pos] = None
            elif op in _SHAPE_OPS and not any(producer.get(i) in folded for i in ins):
                folded[pos] = op != "ShapeN"  # (reads step values, not folded ones)
        frontier: dict[int, list] = {}
        for pos, entry in enumerate(program):
            if pos in folded:
                continue
            for i in entry[1]:
                q = producer.get(i)
                if q in folded and q not in frontier:
                    cone, todo = set(), [q]
                    while todo:
                        c = todo.pop()
                        if c not in cone:
                            cone.add(c)
                            if folded[c] is None:
                                todo.extend(producer[j] for j in program[c][1]
                                            if j not in consts)
                    frontier[q] = sorted(cone)
        return folded, frontier

    def _fold_call(self, pos: int, cone: list[int], folded: dict[int, Any],
                   names: dict[str, Any], consts: set[int]) -> list[str]:
        """The lines computing folded entry ``pos``: its value looked up by the shapes its
        cone's Shape/Size/Rank entries read, computed by a generated function ``fold<pos>``
        (the cone's kernels on shape-only proxy arrays) when the memo misses."""
        program = self._program
        roots = [c for c in cone if folded[c] is not None]
        key = _tuple([f"r{c}" for c in roots]) if len(roots) != 1 else f"r{roots[0]}"
        lines = ["def fold(" + ", ".join(f"r{c}" for c in roots) + "):", "  q = -1", "  try:"]
        for c in cone:
            _, ins, out, nout, _, _, _ = program[c]
            lines.append(f"    q = {c}")
            if c in roots:
                args = f"_proxy(r{c})" if folded[c] else f"*map(_proxy, r{c})"
            else:
                args = ", ".join(f"c{i}" if i in consts else f"s{i}" for i in ins)
                names.update((f"c{i}", self._template[i]) for i in ins if i in consts)
            lines.append(f"    {''.join(f's{out + i}, ' for i in range(nout))}= f{c}({args})")
        _, _, out, nout, _, _, _ = program[pos]
        lines += [f"    return {_tuple([f's{out + i}' for i in range(nout)])}",
                  "  except BaseException as e:", "    raise _fail(q, e) from None"]
        exec(compile("\n".join(lines), f"<graphcore fold {pos}>", "exec"), names)
        names[f"fold{pos}"] = names.pop("fold")
        names[f"m{pos}"] = {}
        return [f"    p = {pos}", f"    v = m{pos}.get({key})",
                "    if v is None:",
                f"        v = _memoize(m{pos}, {key}, fold{pos}({', '.join(f'r{c}' for c in roots)}))",
                f"    {''.join(f's{out + i}, ' for i in range(nout))}= v"]

    def _straight_line_error(self, p: int, e: BaseException) -> BaseException:
        if p >= 0:
            k = self._program_index[p]
        elif p <= -2:
            k = self._retval_instr[-2 - p]
        else:
            k = 0
        return self._node_error(k, e)

    # -- running ----------------------------------------------------------------------
    def run(self, step: Step) -> None:
        """Runs the partition's nodes once, in order."""
        # Kernels compute with numpy's floating-point errors ignored (inf/nan results,
        # as TF's kernels give): set once per step here, not per kernel call.
        with np.errstate(all="ignore"):
            if self._straight is not None:
                self._straight(step, step.args)
            else:
                self._run(step)

    def _run(self, step: Step) -> None:
        vals = self._template.copy()
        args = step.args
        for slot, index in self._arg_slots:
            vals[slot] = args[index]
        pos = -1
        try:
            for fn, ins, out, nout, deref, needs_step, last in self._program:
                pos += 1
                if deref is None:
                    res = fn(step, *[vals[i] for i in ins]) if needs_step \
                        else fn(*[vals[i] for i in ins])
                else:
                    args = [_deref(vals[i]) if d else vals[i] for i, d in zip(ins, deref)]
                    res = fn(step, *args) if needs_step else fn(*args)
                    del args
                for i in last:
                    vals[i] = None
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
        with np.errstate(all="ignore"):
            if self._has_frames:
                self._run_frames(step, stats)
            else:
                self._run_full(step, stats)

    def _run_full(self, step: Step, stats: step_stats_pb2.DeviceStepStats | None) -> None:
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
                res = _call(instr, step, args)
                if instr.nout:
                    vals[instr.out:instr.out + instr.nout] = res
                    if op in _ACCEPTS_DEAD and res[0] is DEAD:
                        dead[k] = True
                if stats is not None:
                    elapsed = int((time.perf_counter() - t0) * 1e6)
                    _record(stats, instr, start, elapsed, res if instr.nout else (), thread_id)
            _check_retvals_live(step)
        except BaseException as e:
            raise self._node_error(max(k, 0), e) from None

    # -- while loops: frames and iterations ---------------------------------------------
    def _build_frames_program(self) -> tuple:
        """Static tables of the frame interpreter: per node its kind, data consumers per
        output, control consumers, input counts, and the Enter count of each frame."""
        instrs = self._instrs
        index_of = {instr.name: k for k, instr in enumerate(instrs)}
        n = len(instrs)
        kinds = [_K_NORMAL] * n
        data_consumers: list[list[list[tuple[int, int]]]] = [
            [[] for _ in range(instr.nout)] for instr in instrs]
        ctrl_consumers: list[list[int]] = [[] for _ in range(n)]
        n_inputs = [0] * n
        n_forward = [0] * n  # a Merge's inputs that are not loop back edges
        has_back_edge = [False] * n
        frame_names: list[str] = [""] * n
        is_constant = [False] * n
        enter_counts: dict[str, int] = {}
        for k, instr in enumerate(instrs):
            op = instr.op
            kinds[k] = _KINDS.get(op, _K_NORMAL)
            if kinds[k] == _K_ENTER:
                attr = instr.node_def.attr
                frame_names[k] = attr["frame_name"].s.decode()
                is_constant[k] = attr["is_constant"].b
                enter_counts[frame_names[k]] = enter_counts.get(frame_names[k], 0) + 1
            pos = 0
            for inp in instr.node_def.input:
                if inp.startswith("^"):
                    ctrl_consumers[index_of[inp[1:]]].append(k)
                    n_inputs[k] += 1
                    continue
                src, sep, idx = inp.rpartition(":")
                if not (sep and idx.isdigit()):
                    src, idx = inp, "0"
                j = index_of[src]
                data_consumers[j][int(idx)].append((k, pos))
                n_inputs[k] += 1
                if kinds[j] == _K_NEXT and kinds[k] == _K_MERGE:
                    has_back_edge[k] = True
                else:
                    n_forward[k] += 1
                pos += 1
        sources = [k for k in range(n) if n_inputs[k] == 0]
        return (kinds, data_consumers, ctrl_consumers, n_inputs, n_forward, has_back_edge,
                frame_names, is_constant, enter_counts, sources)

    def _run_frames(self, step: Step, stats: step_stats_pb2.DeviceStepStats | None) -> None:
        """TF's executor semantics for while loops: a value carries a (frame, iteration)
        tag; Enter moves it into a child frame (a loop constant into every iteration),
        NextIteration into the next iteration, Exit back to the parent frame. Dead values
        propagate as in ``run_full``; a dead NextIteration ends its iteration chain and a
        frame's Exits that never got a live value leave it dead when the frame is done."""
        if self._frames_program is None:
            self._frames_program = self._build_frames_program()
            kinds_, data_, ctrl_, n_inputs_ = self._frames_program[:4]
            self._frame_edges = (
                [[(i, c, pos) for i, consumers in enumerate(data_[k]) for c, pos in consumers]
                 + [(-1, c, -1) for c in ctrl_[k]] for k in range(len(kinds_))],
                [n == 1 and kind != _K_MERGE for n, kind in zip(n_inputs_, kinds_)])
        (kinds, data_consumers, ctrl_consumers, n_inputs, n_forward, has_back_edge,
         frame_names, is_constant, enter_counts, sources) = self._frames_program
        instrs = self._instrs
        root = _Frame(None, 0, "", 0)
        queue: collections.deque = collections.deque()
        thread_id = threading.get_ident() & 0x7FFFFFFF
        # (node -> [(output index or -1 for a control edge, consumer, input position)];
        # nodes of one input, not Merges, are ready on arrival: queued without state)
        edges, single = self._frame_edges
        n_args = [len(instr.ins) for instr in instrs]
        enqueue = queue.append

        def deliver(frame: _Frame, it: int, k: int, pos: int, value: Any) -> None:
            key = (k, it)
            states = frame.states
            st = states.get(key)
            if kinds[k] == _K_MERGE:
                if st is None:
                    st = states[key] = [0, 0, False]  # arrivals, dead forward inputs, fired
                st[0] += 1
                if not st[2]:
                    if pos >= 0 and value is not DEAD:
                        st[2] = True
                        frame.outstanding += 1
                        queue.append((frame, it, k, (value, np.int32(pos)), False))
                    elif pos >= 0:
                        st[1] += 1
                        if st[1] >= n_forward[k]:
                            st[2] = True
                            frame.outstanding += 1
                            queue.append((frame, it, k, None, True))
                if (st[2] and has_back_edge[k]) or st[0] >= n_inputs[k]:
                    del states[key]
                return
            if st is None:
                st = states[key] = [[None] * len(instrs[k].ins), n_inputs[k], False]
            if value is DEAD:
                st[2] = True
            elif pos >= 0:
                st[0][pos] = value
            st[1] -= 1
            if st[1] == 0:
                del states[key]
                frame.outstanding += 1
                queue.append((frame, it, k, st[0], st[2]))


        def send(frame: _Frame, it: int, k: int, outs: Any, dead: bool) -> None:
            for i, c, pos in edges[k]:
                v = DEAD if dead else (outs[i] if i >= 0 else None)
                if single[c]:
                    frame.outstanding += 1
                    if v is DEAD:
                        enqueue((frame, it, c, [None] * n_args[c], True))
                    elif pos == 0:
                        enqueue((frame, it, c, [v], False))
                    else:  # (a control input)
                        enqueue((frame, it, c, [None] * n_args[c], False))
                else:
                    deliver(frame, it, c, pos, v)

        def new_iteration(frame: _Frame, it: int) -> None:
            if it >= frame.n_iters:
                frame.n_iters = it + 1
                for ek, v in frame.invariants:
                    send(frame, it, ek, (v,), v is DEAD)

        def finish(frame: _Frame) -> None:
            while frame is not root and frame.outstanding == 0 and frame.pending_enters == 0:
                parent = frame.parent
                for k in sorted(frame.dead_exits - frame.live_exits):
                    send(parent, frame.parent_iter, k, None, True)
                del parent.children[(frame.parent_iter, frame.name)]
                parent.outstanding -= 1
                frame = parent

        def propagate(frame: _Frame, it: int, k: int, outs: Any, dead: bool) -> None:
            kind = kinds[k]
            if kind == _K_ENTER:
                name = frame_names[k]
                child = frame.children.get((it, name))
                if child is None:
                    child = frame.children[(it, name)] = _Frame(frame, it, name,
                                                                enter_counts[name])
                    frame.outstanding += 1
                child.pending_enters -= 1
                value = DEAD if dead else outs[0]
                if is_constant[k]:
                    child.invariants.append((k, value))
                    for i in range(child.n_iters):
                        send(child, i, k, (value,), dead)
                else:
                    send(child, 0, k, (value,), dead)
                finish(child)
            elif kind == _K_EXIT:
                if dead:
                    frame.dead_exits.add(k)
                else:
                    frame.live_exits.add(k)
                    send(frame.parent, frame.parent_iter, k, outs, False)
            elif kind == _K_NEXT:
                if not dead:
                    new_iteration(frame, it + 1)
                    send(frame, it + 1, k, outs, False)
            else:
                send(frame, it, k, outs, dead)

        for k in sources:
            root.outstanding += 1
            queue.append((root, 0, k, [], False))
        k = -1
        try:
            while queue:
                frame, it, k, args, dead = queue.popleft()
                instr = instrs[k]
                kind = kinds[k]
                if kind == _K_MERGE:
                    outs = args
                elif dead and kind != _K_FORWARDS_DEAD and kind != _K_TRIGGER:
                    outs = None
                else:
                    if kind == _K_FORWARDS_DEAD and frame is not root and \
                            instr.op != "_Retval":
                        raise errors.UnimplementedError(
                            None, None, "A _Send/_Recv inside a while loop (a loop whose "
                                        "body spans devices) is not supported")
                    dead = False
                    if stats is None:
                        outs = _call(instr, step, args)
                    else:
                        start = time.time()
                        t0 = time.perf_counter()
                        outs = _call(instr, step, args)
                        elapsed = int((time.perf_counter() - t0) * 1e6)
                        _record(stats, instr, start, elapsed, outs if instr.nout else (),
                                thread_id)
                propagate(frame, it, k, outs, dead)
                frame.outstanding -= 1
                finish(frame)
            _check_retvals_live(step)
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
            with np.errstate(all="ignore"):  # per pool thread, as in run()
                run_node(k)

        def run_node(k: int) -> None:
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
                run_node(ready[0])

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


def _call(instr: _Instr, step: Step, args: list) -> Any:
    """One node's kernel on ``args`` (ref inputs read where the node wants values)."""
    if instr.deref is not None:
        args = [_deref(a) if d and a is not DEAD else a for a, d in zip(args, instr.deref)]
    return instr.fn(step, *args) if instr.needs_step else instr.fn(*args)


def _check_retvals_live(step: Step) -> None:
    for index, value in enumerate(step.retvals):
        if value is DEAD:
            raise errors.InvalidArgumentError(
                None, None, f"Retval[{index}] does not have value (it is on an untaken "
                            "branch of a cond)")


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
