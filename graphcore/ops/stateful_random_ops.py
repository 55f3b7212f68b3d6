"""``tf.random.Generator`` in graph mode: the RNG state is an int64 resource variable
(``random_generator/StateVar``); each draw is RngReadAndSkip (read the state, move its
counter on) feeding a key/counter stateless op (StatelessRandomNormalV2 ...), as TF's
stateful_random_ops. Also NonDeterministicInts and the global generator."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, manip_ops, math_ops, random_ops
from graphcore.ops import stateless_random_ops as stateless

__all__ = ["Generator", "get_global_generator", "non_deterministic_ints",
           "set_global_generator"]

op_registry.register_op("RngReadAndSkip").input("resource: resource").input("alg: int32") \
    .input("delta: uint64").output("value: int64").stateful() \
    .shape_fn(lambda op: [shape_lib.TensorShape([3])])
op_registry.register_op("NonDeterministicInts").input("shape: shape_dtype") \
    .output("output: dtype").attr("dtype: type = DT_INT64") \
    .attr("shape_dtype: type = DT_INT64").stateful() \
    .shape_fn(lambda op: [random_ops.shape_from_shape_tensor(op.inputs[0])])
op_registry.register_op("StatefulRandomBinomial").input("resource: resource") \
    .input("algorithm: int64").input("shape: S").input("counts: T").input("probs: T") \
    .output("output: dtype").attr("S: {int32, int64}") \
    .attr("T: {half, float, double, int32, int64} = DT_DOUBLE") \
    .attr("dtype: {half, float, double, int32, int64} = DT_INT64").stateful() \
    .shape_fn(lambda op: [random_ops.shape_from_shape_tensor(op.inputs[2])])
NotDifferentiable("RngReadAndSkip")
NotDifferentiable("StatefulRandomBinomial")
NotDifferentiable("NonDeterministicInts")


def non_deterministic_ints(shape: Any, dtype: Any = dtypes_lib.int64,
                           name: str | None = None) -> ops_lib.Tensor:
    """Integers from OS entropy (the NonDeterministicInts op)."""
    return apply_op("NonDeterministicInts", name=name,
                    shape=convert_to_tensor(shape, dtype=dtypes_lib.int64),
                    dtype=dtype).outputs[0]


def _counter_size(alg: int) -> int:
    return 1 if alg == stateless.Algorithm.THREEFRY.value else 2


class Generator:
    """A random-number generator whose state is a variable (TF's ``tf.random.Generator``):
    draws from one generator differ; two generators from the same seed draw the same."""

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> Generator:
        alg = stateless.Algorithm.AUTO_SELECT if alg is None else alg
        return cls(state=stateless.create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_state(cls, state: Any, alg: Any) -> Generator:
        return cls(state=state, alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        alg = stateless.Algorithm.AUTO_SELECT if alg is None else alg
        size = stateless.STATE_SIZES[stateless.convert_alg_to_int(alg)]
        return cls(state=non_deterministic_ints([size]), alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any) -> Generator:
        counter = math_ops.cast(convert_to_tensor(counter), dtypes_lib.int64)
        key = array_ops.reshape(math_ops.cast(convert_to_tensor(key), dtypes_lib.int64), [1])
        return cls(state=array_ops.concat([counter, key], 0), alg=alg)

    def __init__(self, copy_from: Generator | None = None, state: Any = None,
                 alg: Any = None):
        from graphcore.ops import resource_variable_ops

        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When `copy_from` is not None, neither `state` nor `alg` "
                                 "should be given.")
            state, alg = copy_from.state.read_value(), copy_from.algorithm
        elif state is None or alg is None:
            raise ValueError("When `copy_from` is None, both `state` and `alg` must be "
                             "given.")
        self._alg = stateless.convert_alg_to_int(alg)
        with ops_lib.name_scope("random_generator"):
            self._state_var = resource_variable_ops.ResourceVariable(
                convert_to_tensor(state, dtype=dtypes_lib.int64), trainable=False,
                name="StateVar", dtype=dtypes_lib.int64)

    @property
    def state(self) -> Any:
        """The state variable."""
        return self._state_var

    @property
    def algorithm(self) -> int:
        return self._alg

    @property
    def key(self) -> ops_lib.Tensor:
        return self._state_var[-1]

    def reset(self, state: Any) -> Any:
        return self._state_var.assign(convert_to_tensor(state, dtype=dtypes_lib.int64))

    def reset_from_seed(self, seed: Any) -> Any:
        return self.reset(stateless.create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key: Any, counter: Any) -> Any:
        counter = math_ops.cast(convert_to_tensor(counter), dtypes_lib.int64)
        key = array_ops.reshape(math_ops.cast(convert_to_tensor(key), dtypes_lib.int64), [1])
        return self.reset(array_ops.concat([counter, key], 0))

    def skip(self, delta: Any) -> ops_lib.Tensor:
        """Moves the state on as ``delta`` draws would; returns the state before."""
        delta = math_ops.cast(convert_to_tensor(delta), dtypes_lib.uint64)
        return apply_op("RngReadAndSkip", resource=self._state_var.handle,
                        alg=array_ops.constant(self._alg, dtypes_lib.int32),
                        delta=delta).outputs[0]

    def _prepare_key_counter(self, shape: ops_lib.Tensor) -> tuple:
        state = self.skip(math_ops.reduce_prod(shape))
        size = _counter_size(self._alg)
        counter = manip_ops.bitcast(state[:size], dtypes_lib.uint64)
        key = manip_ops.bitcast(state[size:size + 1], dtypes_lib.uint64)
        return key, counter

    def _draw(self, op_type: str, shape: Any, dtype: Any, **extra: Any) -> ops_lib.Tensor:
        shape = random_ops._shape_tensor(shape)
        key, counter = self._prepare_key_counter(shape)
        return apply_op(op_type, shape=shape, key=key, counter=counter,
                        alg=array_ops.constant(self._alg, dtypes_lib.int32), dtype=dtype,
                        **extra).outputs[0]

    def normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
               dtype: Any = dtypes_lib.float32, name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, "stateful_normal", [shape, mean, stddev]) as name:
            rnd = self._draw("StatelessRandomNormalV2", shape, dtype)
            return math_ops.add(rnd * convert_to_tensor(stddev, dtype=dtype, name="stddev"),
                                convert_to_tensor(mean, dtype=dtype, name="mean"), name=name)

    def truncated_normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                         dtype: Any = dtypes_lib.float32,
                         name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, "truncated_normal", [shape, mean, stddev]) as name:
            rnd = self._draw("StatelessTruncatedNormalV2", shape, dtype)
            return math_ops.add(rnd * convert_to_tensor(stddev, dtype=dtype, name="stddev"),
                                convert_to_tensor(mean, dtype=dtype, name="mean"), name=name)

    def uniform(self, shape: Any, minval: Any = 0, maxval: Any = None,
                dtype: Any = dtypes_lib.float32, name: str | None = None) -> ops_lib.Tensor:
        dtype = dtypes_lib.as_dtype(dtype)
        if dtype.is_integer and maxval is None:
            if minval is None:
                return self.uniform_full_int(shape, dtype, name)
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        with ops_lib.name_scope(name, "stateful_uniform", [shape, minval, maxval]) as name:
            minval = convert_to_tensor(0 if minval is None else minval, dtype=dtype,
                                       name="min")
            maxval = convert_to_tensor(1 if maxval is None else maxval, dtype=dtype,
                                       name="max")
            if dtype.is_integer:
                return self._draw("StatelessRandomUniformIntV2", shape, dtype, minval=minval,
                                  maxval=maxval)
            rnd = self._draw("StatelessRandomUniformV2", shape, dtype)
            return math_ops.add(rnd * (maxval - minval), minval, name=name)

    def uniform_full_int(self, shape: Any, dtype: Any = dtypes_lib.uint64,
                         name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, "stateful_uniform_full_int", [shape]):
            return self._draw("StatelessRandomUniformFullIntV2", shape, dtype)

    def binomial(self, shape: Any, counts: Any, probs: Any, dtype: Any = dtypes_lib.int32,
                 name: str | None = None) -> ops_lib.Tensor:
        """Binomial(counts, probs) samples of shape ``shape`` (StatefulRandomBinomial)."""
        with ops_lib.name_scope(name, "binomial", [shape, counts, probs]) as name:
            counts = convert_to_tensor(counts, name="counts")
            probs = convert_to_tensor(probs, name="probs")
            return apply_op("StatefulRandomBinomial", name=name,
                            resource=self._state_var.handle,
                            algorithm=array_ops.constant(self._alg, dtypes_lib.int64),
                            shape=random_ops._shape_tensor(shape), counts=counts,
                            probs=probs, dtype=dtype).outputs[0]

    def _make_int64_keys(self, shape: Any = ()) -> ops_lib.Tensor:
        return self.uniform_full_int(shape=shape, dtype=dtypes_lib.int64)

    def make_seeds(self, count: int = 1) -> ops_lib.Tensor:
        """A [2, count] tensor of seeds for the stateless ops."""
        return array_ops.stack([self._make_int64_keys([count]),
                                self._make_int64_keys([count])])

    def split(self, count: int = 1) -> list[Generator]:
        """``count`` new generators, seeded from this one's stream."""
        keys = self._make_int64_keys([count])
        zeros = array_ops.zeros([_counter_size(self._alg)], dtypes_lib.int64)
        return [Generator(state=array_ops.concat([zeros, array_ops.reshape(k, [1])], 0),
                          alg=self._alg)
                for k in array_ops.unstack(keys, num=count)]


_global_generator: Generator | None = None


def get_global_generator() -> Generator:
    """The process's generator, made from OS entropy on first use."""
    global _global_generator
    if _global_generator is None:
        with ops_lib.control_dependencies(None):
            _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator: Generator) -> None:
    """Replaces the global generator (graphs already built keep the old one)."""
    global _global_generator
    _global_generator = generator
