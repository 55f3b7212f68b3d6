"""oneDNN's convolution and pooling primitives over numpy buffers (float32, channels-last).

The conv and pool kernels call these first, as TensorFlow's CPU kernels run oneDNN's
primitives on x86: dense and grouped (depthwise) convolution forward, backward-data and
backward-weights, and max/average pooling forward and backward.  Each function returns
None where the primitive path does not apply (no oneDNN, another dtype, a geometry
oneDNN rejects), and the caller's numpy path computes the op instead.

The binding is ctypes over oneDNN v3's C API, on the libdnnl that :mod:`blas` loaded for
``dnnl_sgemm``.  Memory is described by strides, never by format tags (whose enum values
move between releases): the activations stay in numpy's NHWC buffers, passed zero-copy
as data handles, and the filters are described in TF's [*K, C, O] layout and reordered to
the layout the primitive asks for (``format_tag_any``), and back for filter gradients.
A plan (the primitive descriptors, primitives and reorders of one op geometry) is built
once per (op, shapes, strides, dilations, paddings, OpenMP team size), since oneDNN
sizes a primitive's work split for the team it is created under.  Each thread executes
a plan with its own memory objects, scratchpad (user-managed) and stream.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable

import numpy as np

from graphcore.kernels import blas, intra_op

F32 = np.dtype(np.float32)
_DIMS = ctypes.c_int64 * 12  # dnnl_dims_t (DNNL_MAX_NDIMS)
_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)

# Values of oneDNN v3's C enums (oneapi/dnnl/dnnl_types.h, dnnl_common_types.h).
_CPU = 1                                  # dnnl_cpu
_IN_ORDER = 1                             # dnnl_stream_in_order
_F32 = 3                                  # dnnl_f32
_TAG_ANY = 1                              # dnnl_format_tag_any
_FORWARD_TRAINING, _FORWARD_INFERENCE, _BACKWARD = 64, 96, 128
_USE_GLOBAL_STATS, _USE_SCALE, _USE_SHIFT = 1, 2, 4  # dnnl_normalization_flags_t
_CONVOLUTION_DIRECT = 1
_POOLING_MAX, _POOLING_AVG_EXCLUDE_PADDING = 0x1FF, 0x3FF
_SCRATCHPAD_USER = 1                      # dnnl_scratchpad_mode_user
_Q_IMPL_INFO = 8
_Q_WEIGHTS, _Q_DIFF_WEIGHTS, _Q_WORKSPACE, _Q_SCRATCHPAD = 131, 132, 135, 136
ARG_SRC, ARG_DST, ARG_WEIGHTS, ARG_WORKSPACE, ARG_SCRATCHPAD = 1, 17, 33, 64, 80
ARG_DIFF_SRC, ARG_DIFF_DST, ARG_DIFF_WEIGHTS = 129, 145, 161
ARG_MEAN, ARG_VARIANCE, ARG_SCALE, ARG_SHIFT = 49, 50, 51, 52
ARG_DIFF_SCALE, ARG_DIFF_SHIFT = 255, 256

# Multiply-adds of a convolution under which its plan runs on one thread: waking
# OpenMP's other threads costs more than it saves there.
SERIAL_WORK = 1 << 18
# Elements under which pooling and batch norm (a few passes over memory, with barriers
# between them in oneDNN) run on one thread.  On the shared 2-core machine at load 3-5,
# MobileNet's [64,16,16,32] batch norm forward took 0.43 ms on one thread and 23 ms on
# two (median of 60; each barrier waits for a thread without a core), its max-pool 0.27
# against 1.05 ms; a pass over 2^22 floats (16 MB) takes milliseconds on one core.
SERIAL_ELEMENTS = 1 << 22
# Plans kept at most (then the cache starts over: shapes that vary without end).
_PLANS = 512
# Data buffers oneDNN reads are aligned so (its own allocations are).
_ALIGN = 64


class DnnlError(RuntimeError):
    """A oneDNN call failed where it had succeeded before (execution, not planning)."""


class _Arg(ctypes.Structure):  # dnnl_exec_arg_t
    _fields_ = [("arg", ctypes.c_int), ("memory", _P)]


class _Api:
    """The entry points, typed."""

    def __init__(self, lib: ctypes.CDLL):
        def fn(name: str, *argtypes: object, restype: object = ctypes.c_int):
            f = getattr(lib, name)
            f.argtypes, f.restype = list(argtypes), restype
            return f

        dims4 = (_DIMS,) * 4
        self.engine_create = fn("dnnl_engine_create", _PP, ctypes.c_int, ctypes.c_size_t)
        self.stream_create = fn("dnnl_stream_create", _PP, _P, ctypes.c_uint)
        self.stream_wait = fn("dnnl_stream_wait", _P)
        self.attr_create = fn("dnnl_primitive_attr_create", _PP)
        self.attr_scratchpad = fn("dnnl_primitive_attr_set_scratchpad_mode", _P,
                                  ctypes.c_int)
        self.md_strides = fn("dnnl_memory_desc_create_with_strides", _PP, ctypes.c_int,
                             _DIMS, ctypes.c_int, _DIMS)
        self.md_tag = fn("dnnl_memory_desc_create_with_tag", _PP, ctypes.c_int, _DIMS,
                         ctypes.c_int, ctypes.c_int)
        self.md_destroy = fn("dnnl_memory_desc_destroy", _P)
        self.md_equal = fn("dnnl_memory_desc_equal", _P, _P)
        self.md_size = fn("dnnl_memory_desc_get_size", _P, restype=ctypes.c_size_t)
        self.conv_forward = fn("dnnl_convolution_forward_primitive_desc_create", _PP, _P,
                               ctypes.c_int, ctypes.c_int, _P, _P, _P, _P, *dims4, _P)
        self.conv_backward_data = fn("dnnl_convolution_backward_data_primitive_desc_create",
                                     _PP, _P, ctypes.c_int, _P, _P, _P, *dims4, _P, _P)
        self.conv_backward_weights = fn(
            "dnnl_convolution_backward_weights_primitive_desc_create", _PP, _P,
            ctypes.c_int, _P, _P, _P, _P, *dims4, _P, _P)
        self.pool_forward = fn("dnnl_pooling_forward_primitive_desc_create", _PP, _P,
                               ctypes.c_int, ctypes.c_int, _P, _P, *(_DIMS,) * 5, _P)
        self.pool_backward = fn("dnnl_pooling_backward_primitive_desc_create", _PP, _P,
                                ctypes.c_int, _P, _P, *(_DIMS,) * 5, _P, _P)
        self.bnorm_forward = fn("dnnl_batch_normalization_forward_primitive_desc_create",
                                _PP, _P, ctypes.c_int, _P, _P, ctypes.c_float,
                                ctypes.c_uint, _P)
        self.bnorm_backward = fn("dnnl_batch_normalization_backward_primitive_desc_create",
                                 _PP, _P, ctypes.c_int, _P, _P, _P, ctypes.c_float,
                                 ctypes.c_uint, _P, _P)
        self.reorder = fn("dnnl_reorder_primitive_desc_create", _PP, _P, _P, _P, _P, _P)
        self.query = fn("dnnl_primitive_desc_query", _P, ctypes.c_int, ctypes.c_int, _P)
        self.query_md = fn("dnnl_primitive_desc_query_md", _P, ctypes.c_int, ctypes.c_int,
                           restype=_P)
        self.pd_destroy = fn("dnnl_primitive_desc_destroy", _P)
        self.primitive_create = fn("dnnl_primitive_create", _PP, _P)
        self.primitive_destroy = fn("dnnl_primitive_destroy", _P)
        self.memory_create = fn("dnnl_memory_create", _PP, _P, _P, _P)
        self.memory_set = fn("dnnl_memory_set_data_handle", _P, _P)
        self.memory_destroy = fn("dnnl_memory_destroy", _P)
        self.execute = fn("dnnl_primitive_execute", _P, _P, ctypes.c_int,
                          ctypes.POINTER(_Arg))


def _dims(values: tuple | list) -> _DIMS:
    return _DIMS(*values)


def _aligned(nbytes: int) -> np.ndarray:
    """An uninitialised byte buffer whose data starts on an _ALIGN boundary."""
    raw = np.empty(nbytes + _ALIGN, dtype=np.uint8)
    start = (-raw.ctypes.data) % _ALIGN
    return raw[start:start + nbytes]


class _Owned:
    """oneDNN objects a plan created (destroyed with it)."""

    def __init__(self, api: _Api):
        self.api = api
        self.mds: list[int] = []
        self.pds: list[int] = []
        self.prims: list[int] = []
        self.mems: list[int] = []
        self.lock = threading.Lock()

    def release(self) -> None:
        api = self.api
        for handles, destroy in ((self.mems, api.memory_destroy),
                                 (self.prims, api.primitive_destroy),
                                 (self.pds, api.pd_destroy), (self.mds, api.md_destroy)):
            for h in handles:
                destroy(h)
            handles.clear()


class _Unsupported(Exception):
    """oneDNN has no implementation for this geometry (the caller computes it in numpy)."""


class _Builder:
    """Builds one plan's descriptors and primitives, recording what it owns."""

    def __init__(self, dnnl: _Dnnl):
        self.dnnl, self.api = dnnl, dnnl.api
        self.owned = _Owned(dnnl.api)
        self.impls: list[str] = []  # oneDNN's implementation names, for reports

    def md(self, dims: tuple, strides: tuple | None = None) -> int:
        """A float32 memory descriptor: strided, or format ``any`` without strides."""
        out = _P()
        if strides is None:
            status = self.api.md_tag(ctypes.byref(out), len(dims), _dims(dims), _F32,
                                     _TAG_ANY)
        else:
            status = self.api.md_strides(ctypes.byref(out), len(dims), _dims(dims), _F32,
                                         _dims(strides))
        if status:
            raise _Unsupported(f"memory desc {dims} {strides}: status {status}")
        self.owned.mds.append(out.value)
        return out.value

    def pd(self, create: Callable, *args: object) -> int:
        out = _P()
        status = create(ctypes.byref(out), self.dnnl.engine, *args)
        if status:
            raise _Unsupported(f"{create.__name__}: status {status}")
        self.owned.pds.append(out.value)
        return out.value

    def primitive(self, pd: int) -> int:
        out = _P()
        status = self.api.primitive_create(ctypes.byref(out), pd)
        if status:
            raise _Unsupported(f"primitive create: status {status}")
        self.owned.prims.append(out.value)
        name = ctypes.c_char_p()
        if not self.api.query(pd, _Q_IMPL_INFO, 0, ctypes.byref(name)) and name.value:
            self.impls.append(name.value.decode())
        return out.value

    def reorder(self, src_md: int, dst_md: int) -> int:
        pd = _P()
        status = self.api.reorder(ctypes.byref(pd), src_md, self.dnnl.engine, dst_md,
                                  self.dnnl.engine, self.dnnl.attr)
        if status:
            raise _Unsupported(f"reorder: status {status}")
        self.owned.pds.append(pd.value)
        return pd.value

    def same(self, a: int, b: int) -> bool:
        return bool(self.api.md_equal(a, b))

    def size(self, md: int) -> int:
        return int(self.api.md_size(md))


class _Plan:
    """A sequence of primitives over named buffers: the op's arrays (passed to
    :meth:`run`) and temporaries (reordered filters, workspaces), each thread with its
    own memory objects, temporaries and scratchpads."""

    def __init__(self, builder: _Builder, team: int):
        self.dnnl, self.owned, self.team = builder.dnnl, builder.owned, team
        self.impls = builder.impls
        self._builder = builder  # (while the plan is built)
        # (primitive, [(arg, buffer name, memory desc)])
        self.steps: list[tuple[int, list[tuple[int, str, int]]]] = []
        self.temps: dict[str, int] = {}  # name -> bytes
        self._local = threading.local()

    def __del__(self) -> None:  # (dropped from the cache, and no thread runs it)
        self.owned.release()

    def add(self, pd: int, args: list[tuple[int, str, int]]) -> None:
        """A step running the primitive of ``pd`` over ``args`` ([(arg, buffer name, memory
        desc)]), with a scratchpad of its own if it asks for one."""
        b = self._builder
        scratchpad = b.api.query_md(pd, _Q_SCRATCHPAD, 0)
        if scratchpad and b.size(scratchpad):
            name = f"scratchpad{len(self.steps)}"
            self.temps[name] = b.size(scratchpad)
            args = args + [(ARG_SCRATCHPAD, name, scratchpad)]
        self.steps.append((b.primitive(pd), args))

    def add_reorder(self, src: tuple[str, int], dst: tuple[str, int]) -> None:
        """A step copying buffer ``src[0]`` (layout ``src[1]``) into ``dst[0]``."""
        self.add(self._builder.reorder(src[1], dst[1]),
                 [(ARG_SRC,) + src, (ARG_DST,) + dst])

    def _thread_state(self) -> tuple:
        state = getattr(self._local, "state", None)
        if state is not None:
            return state
        api = self.owned.api
        temps = {name: _aligned(nbytes) for name, nbytes in self.temps.items()}
        steps = []
        for prim, args in self.steps:
            arr = (_Arg * len(args))()
            mems = []
            for i, (arg, name, md) in enumerate(args):
                mem = _P()
                if api.memory_create(ctypes.byref(mem), md, self.dnnl.engine, None):
                    raise DnnlError("dnnl_memory_create failed")
                with self.owned.lock:
                    self.owned.mems.append(mem.value)
                arr[i].arg, arr[i].memory = arg, mem.value
                mems.append((mem.value, name))
            steps.append((prim, arr, mems))
        state = self._local.state = (temps, steps)
        return state

    def run(self, **arrays: np.ndarray) -> None:
        api, dnnl = self.owned.api, self.dnnl
        temps, steps = self._thread_state()
        dnnl.onednn.set_team(self.team)
        stream = dnnl.stream()
        for prim, arr, mems in steps:
            for mem, name in mems:
                buf = arrays.get(name)
                api.memory_set(mem, (buf if buf is not None else temps[name]).ctypes.data)
            status = api.execute(prim, stream, len(mems), arr)
            if status:
                raise DnnlError(f"dnnl_primitive_execute failed with status {status}")
        api.stream_wait(stream)


class _Dnnl:
    """The engine, the per-thread streams and the plan cache of the loaded oneDNN."""

    def __init__(self, onednn: blas._OneDNN):
        self.onednn = onednn
        self.api = _Api(onednn.library)
        engine = _P()
        if self.api.engine_create(ctypes.byref(engine), _CPU, 0):
            raise OSError("dnnl_engine_create failed")
        self.engine = engine.value
        attr = _P()
        if self.api.attr_create(ctypes.byref(attr)) or \
                self.api.attr_scratchpad(attr, _SCRATCHPAD_USER):
            raise OSError("dnnl_primitive_attr_create failed")
        self.attr = attr.value
        self._streams = threading.local()
        self._plans: dict[tuple, _Plan | None] = {}
        self._timings = intra_op.TeamTimings()
        self._lock = threading.Lock()

    def stream(self) -> int:
        stream = getattr(self._streams, "stream", None)
        if stream is None:
            out = _P()
            if self.api.stream_create(ctypes.byref(out), self.engine, _IN_ORDER):
                raise DnnlError("dnnl_stream_create failed")
            stream = self._streams.stream = out.value
        return stream

    def run(self, key: tuple, build: Callable[[_Builder, int], _Plan], work: int,
            **arrays: np.ndarray) -> bool:
        """Runs the plan of ``key`` (built by ``build`` on first use) over ``arrays``;
        False where oneDNN has no implementation.  The team is one thread under
        SERIAL_WORK, else the intra-op thread count or one thread by the timings of
        this key, as :class:`intra_op.TeamTimings` chooses for products."""
        full = min(intra_op.threads(), self.onednn.max_team)
        if full <= 1 or work < SERIAL_WORK:
            plan = self._plan(key, build, 1)
            if plan is None:
                return False
            plan.run(**arrays)
            return True
        stats, one, probe = self._timings.choose(key)
        plan = self._plan(key, build, 1 if one else full)
        if plan is None:
            return False
        t0 = time.perf_counter()
        plan.run(**arrays)
        self._timings.record(stats, one, probe, time.perf_counter() - t0)
        return True

    def _plan(self, key: tuple, build: Callable[[_Builder, int], _Plan], team: int
              ) -> _Plan | None:
        key = key + (team,)
        plan = self._plans.get(key, False)
        if plan is not False:
            return plan
        with self._lock:
            plan = self._plans.get(key, False)
            if plan is not False:
                return plan
            if len(self._plans) >= _PLANS:
                # Plans a thread is running stay alive through its reference.
                self._plans.clear()
            self.onednn.set_team(team)  # oneDNN sizes the plan for the creating team
            builder = _Builder(self)
            try:
                plan = build(builder, team)
                plan._builder = None
            except _Unsupported:
                builder.owned.release()
                plan = None
            self._plans[key] = plan
        return plan


_state: _Dnnl | None = None
_state_lock = threading.Lock()
_enabled = True


def set_enabled(enabled: bool) -> bool:
    """Turns the primitive path on or off (off: every op takes the numpy path); returns
    the previous setting.  For A/B measurements and tests."""
    global _enabled
    previous, _enabled = _enabled, enabled
    return previous


def _get() -> _Dnnl | None:
    global _state
    if not _enabled:
        return None
    if _state is None:
        with _state_lock:
            if _state is None:
                onednn = blas.onednn()
                try:
                    _state = _Dnnl(onednn) if onednn is not None else False
                except (OSError, AttributeError):  # a oneDNN without these entry points
                    _state = False
    return _state or None


def available() -> bool:
    """Whether the primitive path is on (oneDNN loaded and not turned off)."""
    return _get() is not None


# -- memory descriptors of numpy's layouts ------------------------------------------------

def _act_md(b: _Builder, shape: tuple) -> int:
    """A channels-last contiguous [N, *S, C] array as oneDNN's logical (N, C, *S)."""
    strides = np.cumprod((1,) + tuple(reversed(shape[1:])))[::-1]  # elements, row-major
    dims = (shape[0], shape[-1]) + tuple(shape[1:-1])
    el = (int(strides[0]), 1) + tuple(int(s) for s in strides[1:-1])
    return b.md(dims, el)


def _filter_md(b: _Builder, w_shape: tuple, groups: int, any_format: bool) -> int:
    """TF's filter [*K, C/groups... ] as oneDNN's (O, I, *K) or, grouped, (G, O/G, I/G,
    *K): dense w_shape is [*K, I, O]; depthwise w_shape is [*K, C, M] (G = C, O/G = M,
    I/G = 1)."""
    k, c, m = tuple(w_shape[:-2]), w_shape[-2], w_shape[-1]
    nd = len(k)
    tap = [1] * nd  # element strides of the spatial taps: row-major over [*K, C, M]
    acc = c * m
    for d in reversed(range(nd)):
        tap[d] = acc
        acc *= k[d]
    if groups == 1:
        dims, strides = (m, c) + k, (1, m) + tuple(tap)
    else:
        dims, strides = (c, m, 1) + k, (m, 1, c * m) + tuple(tap)
    return b.md(dims, None if any_format else strides)


def _geometry(win) -> tuple | None:
    """(strides, dilations - 1, padding before, padding after), or None where oneDNN
    cannot express the window (negative padding)."""
    if any(p < 0 for pad in win.pads for p in pad):
        return None
    return (tuple(win.strides), tuple(r - 1 for r in win.dilations),
            tuple(p[0] for p in win.pads), tuple(p[1] for p in win.pads))


def _memory_work(elements: int) -> int:
    """The work :meth:`_Dnnl.run` sizes a team by, of a pooling or batch norm over
    ``elements`` (one thread under SERIAL_ELEMENTS)."""
    return elements if elements >= SERIAL_ELEMENTS else 0


def _ok(*arrays: np.ndarray) -> bool:
    return all(a.dtype == F32 and a.size and 3 <= a.ndim <= 5 for a in arrays)


# -- convolution -------------------------------------------------------------------------

def _conv_pds(b: _Builder, x_shape: tuple, w_shape: tuple, y_shape: tuple, groups: int,
              geom: tuple) -> tuple[int, int, int, int]:
    """(src md, filter md in TF's layout, dst md, forward training pd) with the filter's
    format left to oneDNN."""
    strides, dil, pl, pr = (_dims(g) for g in geom)
    src, dst = _act_md(b, x_shape), _act_md(b, y_shape)
    user_w = _filter_md(b, w_shape, groups, any_format=False)
    any_w = _filter_md(b, w_shape, groups, any_format=True)
    fwd = b.pd(b.api.conv_forward, _FORWARD_TRAINING, _CONVOLUTION_DIRECT, src, any_w,
               None, dst, strides, dil, pl, pr, b.dnnl.attr)
    return src, user_w, dst, fwd


def _filter_reader(b: _Builder, team: int, pd: int, user_w: int,
                   args: list[tuple[int, str, int]]) -> _Plan:
    """A plan running ``pd`` (which reads a filter) over ``args`` and the filter ``w``:
    TF's layout as it is when oneDNN takes it, else reordered first into a temporary."""
    plan = _Plan(b, team)
    want = b.api.query_md(pd, _Q_WEIGHTS, 0)
    name = "w"
    if not b.same(want, user_w):
        name = "w_dnnl"
        plan.temps[name] = b.size(want)
        plan.add_reorder(("w", user_w), (name, want))
    plan.add(pd, args + [(ARG_WEIGHTS, name, want)])
    return plan


def _conv_key(op: str, x_shape: tuple, w_shape: tuple, groups: int, geom: tuple) -> tuple:
    return (op, x_shape, w_shape, groups) + geom


def _macs(y_shape: tuple, w_shape: tuple, groups: int) -> int:
    per_out = int(np.prod(w_shape[:-1])) // (w_shape[-2] if groups > 1 else 1)
    return int(np.prod(y_shape)) * per_out


def conv_forward(x: np.ndarray, w: np.ndarray, win, groups: int = 1) -> np.ndarray | None:
    """y [N, *out, O] of x [N, *S, C] and TF's filter w [*K, C, O] (groups 1), or w
    [*K, C, M] for a depthwise conv (groups C, O = C * M); None where not applicable."""
    dnnl = _get()
    geom = _geometry(win)
    if dnnl is None or geom is None or not _ok(x, w):
        return None
    x = np.ascontiguousarray(x)
    w = np.ascontiguousarray(w)
    out_c = w.shape[-1] * (w.shape[-2] if groups > 1 else 1)
    y_shape = (x.shape[0],) + tuple(win.out) + (out_c,)

    def build(b: _Builder, team: int) -> _Plan:
        src, user_w, dst, fwd = _conv_pds(b, x.shape, w.shape, y_shape, groups, geom)
        return _filter_reader(b, team, fwd, user_w, [(ARG_SRC, "x", src), (ARG_DST, "y", dst)])

    y = np.empty(y_shape, dtype=F32)
    ran = dnnl.run(_conv_key("fwd", x.shape, w.shape, groups, geom), build,
                   _macs(y_shape, w.shape, groups), x=x, w=w, y=y)
    return y if ran else None


def conv_backward_data(in_shape: tuple, w: np.ndarray, grad: np.ndarray, win,
                       groups: int = 1) -> np.ndarray | None:
    """The gradient of :func:`conv_forward`'s x, or None where not applicable."""
    dnnl = _get()
    geom = _geometry(win)
    in_shape = tuple(int(d) for d in in_shape)
    if dnnl is None or geom is None or not _ok(w, grad) or 0 in in_shape:
        return None
    w = np.ascontiguousarray(w)
    grad = np.ascontiguousarray(grad)

    def build(b: _Builder, team: int) -> _Plan:
        src, user_w, dst, fwd = _conv_pds(b, in_shape, w.shape, grad.shape, groups, geom)
        strides, dil, pl, pr = (_dims(g) for g in geom)
        any_w = _filter_md(b, w.shape, groups, any_format=True)
        bwd = b.pd(b.api.conv_backward_data, _CONVOLUTION_DIRECT, src, any_w, dst, strides,
                   dil, pl, pr, fwd, b.dnnl.attr)
        return _filter_reader(b, team, bwd, user_w, [(ARG_DIFF_DST, "g", dst),
                                                     (ARG_DIFF_SRC, "dx", src)])

    dx = np.empty(in_shape, dtype=F32)
    ran = dnnl.run(_conv_key("bwd_data", in_shape, w.shape, groups, geom), build,
                   _macs(grad.shape, w.shape, groups), w=w, g=grad, dx=dx)
    return dx if ran else None


def conv_backward_filter(x: np.ndarray, w_shape: tuple, grad: np.ndarray, win,
                         groups: int = 1) -> np.ndarray | None:
    """The gradient of :func:`conv_forward`'s w (TF's layout), or None where not
    applicable."""
    dnnl = _get()
    geom = _geometry(win)
    w_shape = tuple(int(d) for d in w_shape)
    if dnnl is None or geom is None or not _ok(x, grad) or 0 in w_shape:
        return None
    x = np.ascontiguousarray(x)
    grad = np.ascontiguousarray(grad)

    def build(b: _Builder, team: int) -> _Plan:
        src, user_w, dst, fwd = _conv_pds(b, x.shape, w_shape, grad.shape, groups, geom)
        strides, dil, pl, pr = (_dims(g) for g in geom)
        any_w = _filter_md(b, w_shape, groups, any_format=True)
        bwd = b.pd(b.api.conv_backward_weights, _CONVOLUTION_DIRECT, src, any_w, None, dst,
                   strides, dil, pl, pr, fwd, b.dnnl.attr)
        plan = _Plan(b, team)
        got = b.api.query_md(bwd, _Q_DIFF_WEIGHTS, 0)
        direct = b.same(got, user_w)
        if not direct:
            plan.temps["dw_dnnl"] = b.size(got)
        plan.add(bwd, [(ARG_SRC, "x", src), (ARG_DIFF_DST, "g", dst),
                       (ARG_DIFF_WEIGHTS, "dw" if direct else "dw_dnnl", got)])
        if not direct:
            plan.add_reorder(("dw_dnnl", got), ("dw", user_w))
        return plan

    dw = np.empty(w_shape, dtype=F32)
    ran = dnnl.run(_conv_key("bwd_filter", x.shape, w_shape, groups, geom), build,
                   _macs(grad.shape, w_shape, groups), x=x, g=grad, dw=dw)
    return dw if ran else None


# -- pooling -----------------------------------------------------------------------------

def _pool_pd(b: _Builder, alg: int, prop: int, x_shape: tuple, y_shape: tuple,
             k: tuple, geom: tuple) -> tuple[int, int, int]:
    strides, dil, pl, pr = geom
    src, dst = _act_md(b, x_shape), _act_md(b, y_shape)
    fwd = b.pd(b.api.pool_forward, prop, alg, src, dst, _dims(strides), _dims(k),
               _dims(dil), _dims(pl), _dims(pr), b.dnnl.attr)
    return src, dst, fwd


def _pool_geometry(win) -> tuple | None:
    geom = _geometry(win)
    # oneDNN asks for paddings smaller than the window (TF's SAME and VALID give them).
    if geom is None or any(p >= k for pads in geom[2:] for p, k in zip(pads, win.k)):
        return None
    return geom


def pool_forward(x: np.ndarray, win, average: bool) -> np.ndarray | None:
    """Max or average (padding excluded, as TF) pooling of x [N, *S, C]; None where not
    applicable."""
    dnnl = _get()
    geom = _pool_geometry(win)
    if dnnl is None or geom is None or not _ok(x):
        return None
    x = np.ascontiguousarray(x)
    y_shape = (x.shape[0],) + tuple(win.out) + (x.shape[-1],)
    alg = _POOLING_AVG_EXCLUDE_PADDING if average else _POOLING_MAX

    def build(b: _Builder, team: int) -> _Plan:
        src, dst, fwd = _pool_pd(b, alg, _FORWARD_INFERENCE, x.shape, y_shape, win.k, geom)
        plan = _Plan(b, team)
        plan.add(fwd, [(ARG_SRC, "x", src), (ARG_DST, "y", dst)])
        return plan

    y = np.empty(y_shape, dtype=F32)
    ran = dnnl.run(("pool", alg, x.shape, tuple(win.k)) + geom, build, _memory_work(x.size),
                   x=x, y=y)
    return y if ran else None


def pool_backward(in_shape: tuple, grad: np.ndarray, win, average: bool,
                  x: np.ndarray | None = None) -> np.ndarray | None:
    """The gradient of :func:`pool_forward`'s input; max pooling takes the forward input
    ``x`` and recomputes the forward's workspace (where each maximum came from) from it.
    None where not applicable."""
    dnnl = _get()
    geom = _pool_geometry(win)
    in_shape = tuple(int(d) for d in in_shape)
    if dnnl is None or geom is None or not _ok(grad) or 0 in in_shape or \
            (not average and (x is None or not _ok(x))):
        return None
    grad = np.ascontiguousarray(grad)
    alg = _POOLING_AVG_EXCLUDE_PADDING if average else _POOLING_MAX

    def build(b: _Builder, team: int) -> _Plan:
        src, dst, fwd = _pool_pd(b, alg, _FORWARD_TRAINING, in_shape, grad.shape, win.k,
                                 geom)
        strides, dil, pl, pr = geom
        bwd = b.pd(b.api.pool_backward, alg, src, dst, _dims(strides), _dims(win.k),
                   _dims(dil), _dims(pl), _dims(pr), fwd, b.dnnl.attr)
        plan = _Plan(b, team)
        args = [(ARG_DIFF_DST, "g", dst), (ARG_DIFF_SRC, "dx", src)]
        if not average:
            ws = b.api.query_md(fwd, _Q_WORKSPACE, 0)
            plan.temps["y"] = b.size(dst)
            plan.temps["ws"] = b.size(ws)
            plan.add(fwd, [(ARG_SRC, "x", src), (ARG_DST, "y", dst), (ARG_WORKSPACE, "ws", ws)])
            args.append((ARG_WORKSPACE, "ws", ws))
        plan.add(bwd, args)
        return plan

    dx = np.empty(in_shape, dtype=F32)
    arrays = {"g": grad, "dx": dx} if average else {"x": np.ascontiguousarray(x),
                                                    "g": grad, "dx": dx}
    ran = dnnl.run(("pool_bwd", alg, in_shape, tuple(win.k)) + geom, build,
                   _memory_work(int(np.prod(in_shape))), **arrays)
    return dx if ran else None


# -- batch normalization -----------------------------------------------------------------

def _bnorm_ok(x: np.ndarray, *vectors: np.ndarray) -> bool:
    return _ok(x) and x.flags.c_contiguous and all(
        v.dtype == F32 and v.shape == (x.shape[-1],) for v in vectors)


def batch_norm_forward(x: np.ndarray, scale: np.ndarray, offset: np.ndarray, epsilon: float,
                       mean: np.ndarray | None = None, variance: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Batch norm of a channels-last x: (y, mean, variance) of the batch (variance biased),
    or with ``mean`` and ``variance`` given, y normalized by them (inference) and them
    back.  None where not applicable."""
    dnnl = _get()
    stats = mean is not None
    if dnnl is None or not _bnorm_ok(x, scale, offset, *((mean, variance) if stats else ())):
        return None
    flags = _USE_SCALE | _USE_SHIFT | (_USE_GLOBAL_STATS if stats else 0)

    def build(b: _Builder, team: int) -> _Plan:
        data, vec = _act_md(b, x.shape), b.md((x.shape[-1],), (1,))
        pd = b.pd(b.api.bnorm_forward, _FORWARD_INFERENCE if stats else _FORWARD_TRAINING,
                  data, data, epsilon, flags, b.dnnl.attr)
        plan = _Plan(b, team)
        plan.add(pd, [(ARG_SRC, "x", data), (ARG_DST, "y", data), (ARG_SCALE, "scale", vec),
                      (ARG_SHIFT, "offset", vec), (ARG_MEAN, "mean", vec),
                      (ARG_VARIANCE, "variance", vec)])
        return plan

    y = np.empty(x.shape, dtype=F32)
    if not stats:
        mean, variance = np.empty(x.shape[-1], F32), np.empty(x.shape[-1], F32)
    ran = dnnl.run(("bnorm", x.shape, float(epsilon), flags), build, _memory_work(x.size),
                   x=x, y=y, scale=scale, offset=offset, mean=mean, variance=variance)
    return (y, mean, variance) if ran else None


def batch_norm_backward(dy: np.ndarray, x: np.ndarray, scale: np.ndarray, mean: np.ndarray,
                        variance: np.ndarray, epsilon: float
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The gradient of training batch norm (:func:`batch_norm_forward` without given
    statistics) from the batch's ``mean`` and biased ``variance``: (dx, dscale, doffset),
    or None where not applicable."""
    dnnl = _get()
    if dnnl is None or dy.shape != x.shape or not dy.flags.c_contiguous or \
            not _bnorm_ok(x, scale, mean, variance) or dy.dtype != F32:
        return None
    flags = _USE_SCALE | _USE_SHIFT

    def build(b: _Builder, team: int) -> _Plan:
        data, vec = _act_md(b, x.shape), b.md((x.shape[-1],), (1,))
        fwd = b.pd(b.api.bnorm_forward, _FORWARD_TRAINING, data, data, epsilon, flags,
                   b.dnnl.attr)
        bwd = b.pd(b.api.bnorm_backward, _BACKWARD, data, data, data, epsilon, flags, fwd,
                   b.dnnl.attr)
        plan = _Plan(b, team)
        plan.add(bwd, [(ARG_SRC, "x", data), (ARG_DIFF_DST, "dy", data),
                       (ARG_MEAN, "mean", vec), (ARG_VARIANCE, "variance", vec),
                       (ARG_SCALE, "scale", vec), (ARG_DIFF_SRC, "dx", data),
                       (ARG_DIFF_SCALE, "dscale", vec), (ARG_DIFF_SHIFT, "doffset", vec)])
        return plan

    dx = np.empty(x.shape, dtype=F32)
    dscale, doffset = np.empty(x.shape[-1], F32), np.empty(x.shape[-1], F32)
    ran = dnnl.run(("bnorm_bwd", x.shape, float(epsilon)), build, _memory_work(x.size),
                   x=x, dy=dy,
                   mean=mean, variance=variance, scale=scale, dx=dx, dscale=dscale,
                   doffset=doffset)
    return (dx, dscale, doffset) if ran else None
