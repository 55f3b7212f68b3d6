"""``tf.debugging.assert_shapes`` (shape constraints across tensors, by dimension symbol)
and ``tf.debugging.assert_all_finite`` (TF1's signature of VerifyFinite)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, check_ops, control_flow_ops

__all__ = ["assert_all_finite", "assert_shapes"]


def assert_all_finite(t: Any = None, msg: Any = None, name: str | None = None, x: Any = None,
                      message: Any = None) -> ops_lib.Tensor:
    """``t`` (or ``x``) after checking it has no NaN or Inf (``msg``/``message``)."""
    t = x if t is None else t
    msg = message if msg is None else msg
    return check_ops.verify_tensor_all_finite(t, msg, name=name)


def _explicit_size(entry: Any) -> int | None:
    if isinstance(entry, bool):
        return None
    try:
        return int(entry)
    except (TypeError, ValueError):
        return None


def _parse(spec: Any) -> tuple[bool, list]:
    """(constraint on inner-most dimensions only, the dimension entries)."""
    spec = list(spec)
    inner = bool(spec) and (spec[0] is Ellipsis or spec[0] == "*")
    if inner:
        spec = spec[1:]
    return inner, spec or [1]


def assert_shapes(shapes: Any, data: Any = None, summarize: Any = None, message: Any = None,
                  name: str | None = None) -> ops_lib.Operation:
    """Asserts the shapes of several tensors against specs whose entries are sizes (ints
    or int strings), symbols (any other hashable: equal symbols mean equal sizes across
    the tensors) or ``None``/``'.'`` (any size); a leading ``...`` or ``'*'`` constrains
    only the inner-most dimensions. Violations known while building raise ValueError;
    the rest fail the step with InvalidArgumentError."""
    prefix = check_ops._message_prefix(message)
    items = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    with ops_lib.name_scope(name, "assert_shapes", [x for x, _ in items]):
        tensors = [convert_to_tensor(x) for x, _ in items]
        specs = [_parse(spec) for _, spec in items]
        assertions: list = []
        # symbol -> (its static size or None, a dynamic size tensor, where it came from)
        sizes: dict = {}
        for x, (inner, spec) in zip(tensors, specs):
            scalar_like = x.shape.ndims == 0
            rank = 1 if scalar_like else x.shape.ndims
            if rank is not None:
                if (rank < len(spec)) if inner else (rank != len(spec)):
                    words = " at least" if inner else ""
                    raise ValueError(f"{prefix}Specified by tensor {x.name}: must have "
                                     f"rank{words} {len(spec)}.  Received rank {rank}, "
                                     f"shape {x.shape}")
            elif not (len(spec) == 1 and _explicit_size(spec[0]) == 1):
                check = check_ops.assert_rank_at_least if inner else check_ops.assert_rank
                assertions.append(check(x, len(spec), data=data, summarize=summarize,
                                        message=message))
            dims = x.shape.as_list() if rank is not None and not scalar_like else None
            dynamic = None if scalar_like else array_ops.shape(x)
            for i, entry in enumerate(spec):
                if entry is None or entry == ".":
                    continue
                axis = i - len(spec)  # from the end: the inner-most dimensions line up
                static = 1 if scalar_like else (dims[axis] if dims is not None else None)
                explicit = _explicit_size(entry)
                where = f"tensor {x.name} dimension {axis % rank if rank else axis}"
                if explicit is None and entry not in sizes:
                    sizes[entry] = (static, None if scalar_like else dynamic[axis], where)
                    continue
                want_static, want_dynamic, origin = (
                    (explicit, explicit, "an explicit size") if explicit is not None
                    else sizes[entry])
                if static is not None and want_static is not None:
                    if static != want_static:
                        raise ValueError(f"{prefix}Specified by {origin}.  Tensor {x.name} "
                                         f"dimension {axis} must have size {want_static}."
                                         f"  Received size {static}, shape {x.shape}")
                    continue
                got = 1 if scalar_like else dynamic[axis]
                want = want_dynamic if want_dynamic is not None else 1
                assertions.append(check_ops.assert_equal(
                    got, want, data=data, summarize=summarize,
                    message=f"{prefix}Specified by {origin}: {where} has the wrong size"))
        if not assertions:
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        return control_flow_ops.group(*assertions)
