"""tf.keras recurrent layers (TF1's v1 versions): SimpleRNN, LSTM and GRU over their cells,
and the generic RNN layer. The cell's weights live under ``<layer>/<cell>/`` (``lstm/
lstm_cell/kernel:0``, ``recurrent_kernel``, ``bias``, gates in Keras' order i, f, c, o for
LSTM and z, r, h for GRU); the recurrent activation defaults to ``hard_sigmoid`` and GRU's
``reset_after`` to False, as in TF1. The time loop is a ``tf.scan`` (a while loop), so the
time dimension may be unknown. Not here: dropout inside cells, stateful RNNs."""

from __future__ import annotations

from typing import Any

from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.keras import activations, initializers, regularizers
from graphcore.keras.engine import Layer, deserialize_layer, serialize_layer
from graphcore.ops import array_ops, functional_ops, math_ops, nn_ops

__all__ = ["Bidirectional", "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "SimpleRNN",
           "SimpleRNNCell", "TimeDistributed"]


def _no_dropout(dropout: float, recurrent_dropout: float) -> None:
    if dropout or recurrent_dropout:
        raise NotImplementedError("dropout/recurrent_dropout in Keras RNN cells are not "
                                  "implemented in graphcore")


class _Cell(Layer):
    """A cell: ``call(inputs, states) -> (output, new_states)`` for one time step."""

    gates = 1
    _config_keys = ("units", "activation", "use_bias", "kernel_initializer",
                    "recurrent_initializer", "bias_initializer", "kernel_regularizer",
                    "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
                    "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout")

    def __init__(self, units: int, activation: Any = "tanh", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0, **kwargs: Any) -> None:
        _no_dropout(dropout, recurrent_dropout)
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.recurrent_constraint = recurrent_constraint
        self.bias_constraint = bias_constraint
        self.dropout, self.recurrent_dropout = float(dropout), float(recurrent_dropout)

    @property
    def state_size(self) -> Any:
        return self.units

    def _bias_shape(self) -> tuple:
        return (self.gates * self.units,)

    def _bias_initializer(self) -> Any:
        return self.bias_initializer

    def build(self, input_shape: Any) -> None:
        input_dim = shape_lib.dimension_value(shape_lib.TensorShape(input_shape)[-1])
        width = self.gates * self.units
        self.kernel = self.add_weight("kernel", shape=(input_dim, width),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel", shape=(self.units, width),
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        self.bias = self.add_weight("bias", shape=self._bias_shape(),
                                    initializer=self._bias_initializer(),
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True


class SimpleRNNCell(_Cell):
    """h = activation(x @ kernel + bias + h_prev @ recurrent_kernel)."""

    def call(self, inputs: Any, states: Any) -> tuple:
        h = math_ops.matmul(inputs, self.kernel)
        if self.bias is not None:
            h = nn_ops.bias_add(h, self.bias)
        output = self.activation(h + math_ops.matmul(states[0], self.recurrent_kernel))
        return output, [output]


class LSTMCell(_Cell):
    """Gates i, f, c, o from x @ kernel + h @ recurrent_kernel + bias; state [h, c]."""

    gates = 4
    _config_keys = _Cell._config_keys + ("recurrent_activation", "unit_forget_bias",
                                         "implementation")

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "hard_sigmoid", use_bias: bool = True,
                 unit_forget_bias: bool = True, implementation: int = 1,
                 **kwargs: Any) -> None:
        super().__init__(units, activation=activation, use_bias=use_bias, **kwargs)
        self.implementation = implementation
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias

    @property
    def state_size(self) -> Any:
        return [self.units, self.units]

    def _trackable_children(self) -> dict[str, Any]:
        # Keras' LSTMCell sets state_size, a list (an empty dependency), before its weights.
        return {"state_size": self.state_size, **super()._trackable_children()}

    def _bias_initializer(self) -> Any:
        if not self.unit_forget_bias:
            return self.bias_initializer
        units, init = self.units, self.bias_initializer

        def bias_initializer(shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
            return array_ops.concat([init((units,), dtype=dtype),
                                     initializers.Ones()((units,), dtype=dtype),
                                     init((units * 2,), dtype=dtype)], 0)
        return bias_initializer

    def call(self, inputs: Any, states: Any) -> tuple:
        h_tm1, c_tm1 = states
        z = math_ops.matmul(inputs, self.kernel) + math_ops.matmul(h_tm1,
                                                                   self.recurrent_kernel)
        if self.bias is not None:
            z = nn_ops.bias_add(z, self.bias)
        z0, z1, z2, z3 = array_ops.split(z, 4, axis=1)
        i = self.recurrent_activation(z0)
        f = self.recurrent_activation(z1)
        c = f * c_tm1 + i * self.activation(z2)
        o = self.recurrent_activation(z3)
        h = o * self.activation(c)
        return h, [h, c]


class GRUCell(_Cell):
    """Gates z, r and the candidate h; ``reset_after`` applies the reset gate after the
    recurrent matmul (with a second, recurrent bias: bias shape [2, 3 * units])."""

    gates = 3
    _config_keys = _Cell._config_keys + ("recurrent_activation", "implementation",
                                         "reset_after")

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "hard_sigmoid", use_bias: bool = True,
                 reset_after: bool = False, implementation: int = 1,
                 **kwargs: Any) -> None:
        super().__init__(units, activation=activation, use_bias=use_bias, **kwargs)
        self.implementation = implementation
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after

    def _bias_shape(self) -> tuple:
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def call(self, inputs: Any, states: Any) -> tuple:
        h_tm1 = states[0]
        u = self.units
        matrix_x = math_ops.matmul(inputs, self.kernel)
        if self.bias is not None:
            input_bias = self.bias[0] if self.reset_after else self.bias
            matrix_x = nn_ops.bias_add(matrix_x, input_bias)
        x_z, x_r, x_h = array_ops.split(matrix_x, 3, axis=1)
        if self.reset_after:
            inner = math_ops.matmul(h_tm1, self.recurrent_kernel)
            if self.bias is not None:
                inner = nn_ops.bias_add(inner, self.bias[1])
            in_z, in_r, in_h = array_ops.split(inner, 3, axis=1)
            z = self.recurrent_activation(x_z + in_z)
            r = self.recurrent_activation(x_r + in_r)
            hh = self.activation(x_h + r * in_h)
        else:
            z = self.recurrent_activation(
                x_z + math_ops.matmul(h_tm1, self.recurrent_kernel[:, :u]))
            r = self.recurrent_activation(
                x_r + math_ops.matmul(h_tm1, self.recurrent_kernel[:, u:2 * u]))
            hh = self.activation(
                x_h + math_ops.matmul(r * h_tm1, self.recurrent_kernel[:, 2 * u:]))
        h = z * h_tm1 + (1 - z) * hh
        return h, [h]


class RNN(Layer):
    """Runs ``cell`` over the time axis of [batch, time, features] inputs (a masked time
    step carries the states and the output through)."""

    _supports_masking = True

    _config_keys = ("return_sequences", "return_state", "go_backwards", "stateful",
                    "unroll", "time_major")
    _config_defaults = {"stateful": False, "unroll": False}

    def __init__(self, cell: Any, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 time_major: bool = False, zero_output_for_mask: bool = False,
                 **kwargs: Any) -> None:
        if stateful:
            raise NotImplementedError("stateful Keras RNNs are not implemented in graphcore")
        if isinstance(cell, (list, tuple)):
            raise NotImplementedError("stacked cells (a list of cells) are not implemented "
                                      "in graphcore")
        del unroll
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.time_major = time_major
        self.zero_output_for_mask = zero_output_for_mask

    def get_config(self) -> dict:
        config = super().get_config()
        config["cell"] = serialize_layer(self.cell)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> RNN:
        config = dict(config)
        cell = deserialize_layer(config.pop("cell"), custom_objects)
        return cls(cell, **config)

    @property
    def trainable_weights(self) -> list:
        return self.cell.trainable_weights if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        return self.cell.non_trainable_weights if self.trainable else self.cell.weights

    @property
    def losses(self) -> list:
        return self.cell.losses + list(self._losses)

    def _checkpoint_children(self) -> list:
        return [("cell/", self.cell)]

    def _trackable_children(self) -> dict[str, Any]:
        # Keras' RNN sets state_spec, a list of InputSpecs (an empty dependency), in build.
        children = super()._trackable_children()
        if self.built:
            children["state_spec"] = []
        return children

    def build(self, input_shape: Any) -> None:
        input_shape = shape_lib.TensorShape(input_shape)
        if input_shape.ndims != 3:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the "
                             f"layer: expected ndim=3, found ndim={input_shape.ndims}. Full "
                             f"shape received: {tuple(input_shape.as_list())}")
        with ops_lib.name_scope(self.cell.name):
            self.cell.build(shape_lib.TensorShape([None, input_shape[-1]]))
            self.cell.built = True
        self.built = True

    def compute_mask(self, inputs: Any, mask: Any) -> Any:
        mask = nest.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(nest.flatten(self.cell.state_size))
        return output_mask

    def call(self, inputs: Any, mask: Any = None, training: Any = None,
             initial_state: Any = None) -> Any:
        del training
        time_major = inputs if self.time_major else array_ops.transpose(inputs, [1, 0, 2])
        if mask is not None:
            mask = nest.flatten(mask)[0]
            mask = mask if self.time_major else array_ops.transpose(mask, [1, 0])
        if self.go_backwards:
            # As Keras: the outputs stay in the order they were computed, last step first.
            time_major = array_ops.reverse(time_major, [0])
            if mask is not None:
                mask = array_ops.reverse(mask, [0])
        batch = array_ops.shape(time_major)[1]
        sizes = nest.flatten(self.cell.state_size)
        if initial_state is None:
            states = [array_ops.zeros(array_ops.stack([batch, size]), dtype=inputs.dtype)
                      for size in sizes]
        else:
            states = list(nest.flatten(initial_state))
        first_output = array_ops.zeros(array_ops.stack([batch, self.cell.units]),
                                       dtype=inputs.dtype)

        def step(carry: Any, x_t: Any) -> Any:
            output, new_states = self.cell.call(x_t, list(carry[1:]))
            return (output, *new_states)

        def masked_step(carry: Any, elems: Any) -> Any:
            # As Keras: a masked step keeps the states, and the previous output (zeros
            # with zero_output_for_mask).
            x_t, mask_t = elems
            output, new_states = self.cell.call(x_t, list(carry[1:]))
            keep = array_ops.expand_dims(mask_t, -1)
            output = math_ops.where_v2(keep, output, array_ops.zeros_like(output)
                                       if self.zero_output_for_mask else carry[0])
            return (output, *(math_ops.where_v2(keep, new, old)
                              for new, old in zip(new_states, carry[1:])))

        if mask is None:
            stacked = functional_ops.scan(step, time_major,
                                          initializer=(first_output, *states))
        else:
            stacked = functional_ops.scan(masked_step, (time_major, mask),
                                          initializer=(first_output, *states))
        outputs = stacked[0]
        last_output = outputs[-1]
        final_states = [s[-1] for s in stacked[1:]]
        batch_dim = inputs.shape.as_list()[1 if self.time_major else 0]
        last_output.set_shape([batch_dim, self.cell.units])
        if self.return_sequences:
            result = outputs if self.time_major else array_ops.transpose(outputs, [1, 0, 2])
            result.set_shape(inputs.shape.as_list()[:2] + [self.cell.units])
        else:
            result = last_output
        if self.return_state:
            for s, size in zip(final_states, sizes):
                s.set_shape([batch_dim, size])
            return [result] + final_states
        return result


def _rnn_layer(cell_class: type, doc: str, layer_name: str) -> type:
    def __init__(self: Any, units: int, **kwargs: Any) -> None:
        self._init_args = dict(kwargs, units=units)
        # As Keras: the cell is always named after its class inside the layer's scope
        # (``simple_rnn_1/simple_rnn_cell/kernel``).
        cell_name = _CELL_NAMES[cell_class]
        rnn_args = {k: kwargs.pop(k) for k in
                    ("return_sequences", "return_state", "go_backwards", "stateful",
                     "unroll", "time_major", "zero_output_for_mask", "name", "trainable", "input_shape",
                     "batch_input_shape", "input_dim", "batch_size", "dtype",
                     "activity_regularizer") if k in kwargs}
        cell = cell_class(units, dtype=rnn_args.get("dtype"), name=cell_name, **kwargs)
        if "activity_regularizer" in rnn_args:
            rnn_args["activity_regularizer"] = regularizers.get(
                rnn_args["activity_regularizer"])
        RNN.__init__(self, cell, **rnn_args)

    def units(self: Any) -> int:
        return self.cell.units

    def get_config(self: Any) -> dict:
        # Keras' layer config: the RNN's arguments, then the cell's.
        config = Layer.get_config(self)
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key)
        config.update(cell_config)
        config["activity_regularizer"] = regularizers.serialize(self._activity_regularizer)
        return config

    @classmethod
    def from_config(cls: Any, config: dict) -> Any:
        return cls(**config)

    return type(layer_name, (RNN,), {"__init__": __init__, "__doc__": doc,
                                     "units": property(units), "get_config": get_config,
                                     "from_config": from_config, "__module__": __name__})


_CELL_NAMES = {SimpleRNNCell: "simple_rnn_cell", LSTMCell: "lstm_cell", GRUCell: "gru_cell"}
SimpleRNN = _rnn_layer(SimpleRNNCell, "Fully connected RNN (SimpleRNNCell over time).",
                       "SimpleRNN")
LSTM = _rnn_layer(LSTMCell, "Long short-term memory (LSTMCell over time).", "LSTM")
GRU = _rnn_layer(GRUCell, "Gated recurrent unit (GRUCell over time).", "GRU")


class _Wrapper(Layer):
    """A layer around other layers, whose weights it reports as its own."""

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Layer:
        config = dict(config)
        layer = deserialize_layer(config.pop("layer"), custom_objects)
        return cls(layer, **config)

    def _inner(self) -> list:
        raise NotImplementedError

    @property
    def trainable_weights(self) -> list:
        return [w for la in self._inner() for w in la.trainable_weights] \
            if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        if not self.trainable:
            return [w for la in self._inner() for w in la.weights]
        return [w for la in self._inner() for w in la.non_trainable_weights]

    @property
    def losses(self) -> list:
        return [x for la in self._inner() for x in la.losses] + list(self._losses)

    @property
    def updates(self) -> list:
        return [u for la in self._inner() for u in la.updates] + list(self._updates)


class Bidirectional(_Wrapper):
    """Runs a copy of an RNN layer forwards (``forward_<name>``) and one backwards
    (``backward_<name>``) and merges their outputs (``concat``, ``sum``, ``mul``, ``ave``
    or None for a list)."""

    _supports_masking = True
    _untracked = frozenset({"layer"})

    def __init__(self, layer: Any, merge_mode: str | None = "concat",
                 backward_layer: Any = None, **kwargs: Any) -> None:
        if not isinstance(layer, RNN) or not hasattr(layer, "_init_args"):
            raise ValueError("Please initialize `Bidirectional` layer with a "
                             f"`tf.keras.layers.Layer` instance. Received: {layer}")
        if backward_layer is not None:
            raise NotImplementedError("Bidirectional(backward_layer=...) is not implemented "
                                      "in graphcore")
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should "
                             "be one of {\"sum\", \"mul\", \"ave\", \"concat\", None}")
        super().__init__(**kwargs)
        args = {k: v for k, v in layer._init_args.items()
                if k not in ("name", "input_shape", "batch_input_shape", "input_dim")}
        self.forward_layer = type(layer)(name="forward_" + layer.name, **args)
        args["go_backwards"] = not args.get("go_backwards", False)
        self.backward_layer = type(layer)(name="backward_" + layer.name, **args)
        # As Keras: with sequences out, masked steps give zeros in both directions.
        for inner in (self.forward_layer, self.backward_layer):
            inner.zero_output_for_mask = inner.return_sequences
        self.layer = layer
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        if self._batch_input_shape is None:
            self._batch_input_shape = layer._batch_input_shape

    def _inner(self) -> list:
        return [self.forward_layer, self.backward_layer]

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(layer=serialize_layer(self.layer), merge_mode=self.merge_mode)
        return config

    def _checkpoint_children(self) -> list:
        return [("forward_layer/", self.forward_layer), ("backward_layer/",
                                                         self.backward_layer)]

    def build(self, input_shape: Any) -> None:
        for layer in self._inner():
            with ops_lib.name_scope(layer.name):
                layer.build(input_shape)
                layer.built = True
        self.built = True

    def compute_mask(self, inputs: Any, mask: Any) -> Any:
        if isinstance(mask, list):
            mask = mask[0]
        if self.return_sequences:
            output_mask = mask if self.merge_mode else [mask, mask]
        else:
            output_mask = None if self.merge_mode else [None, None]
        if self.return_state:
            states = [None] * (2 * len(nest.flatten(self.forward_layer.cell.state_size)))
            return (output_mask if isinstance(output_mask, list) else [output_mask]) + states
        return output_mask

    def call(self, inputs: Any, training: Any = None, mask: Any = None,
             initial_state: Any = None) -> Any:
        del training
        if initial_state is not None:
            raise NotImplementedError("Bidirectional(initial_state=...) is not implemented "
                                      "in graphcore")
        y = self.forward_layer.call(inputs, mask=mask)
        y_rev = self.backward_layer.call(inputs, mask=mask)
        states: list = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = array_ops.reverse(y_rev, [0 if self.forward_layer.time_major else 1])
        if self.merge_mode == "concat":
            output = array_ops.concat([y, y_rev], -1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if self.return_state:
            return (output if isinstance(output, list) else [output]) + states
        return output


class TimeDistributed(_Wrapper):
    """Applies ``layer`` to every time step of [batch, time, ...] inputs (as one batch of
    batch * time slices)."""

    _supports_masking = True

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `TimeDistributed` layer with a "
                             f"`tf.keras.layers.Layer` instance. Received: {layer}")
        super().__init__(**kwargs)
        self.layer = layer

    def _inner(self) -> list:
        return [self.layer]

    def get_config(self) -> dict:
        config = super().get_config()
        config["layer"] = serialize_layer(self.layer)
        return config

    def _checkpoint_children(self) -> list:
        return [("layer/", self.layer)]

    def build(self, input_shape: Any) -> None:
        input_shape = shape_lib.TensorShape(input_shape)
        if input_shape.ndims is None or input_shape.ndims < 3:
            raise ValueError("`TimeDistributed` Layer should be passed an `input_shape` with "
                             f"at least 3 dimensions, received: {input_shape}")
        if not self.layer.built:
            inner_shape = shape_lib.TensorShape([None]).concatenate(input_shape[2:])
            self.layer.build(inner_shape)
            self.layer.built = True
            self.layer._build_input_shape = tuple(inner_shape.as_list())
        self.built = True

    def _inner_mask(self, mask: Any) -> Any:
        return None if mask is None else array_ops.reshape(
            mask, array_ops.concat([[-1], array_ops.shape(mask)[2:]], 0))

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The inner layer's mask of the flattened steps, shaped back; else the input's
        mask."""
        inner_mask = self._inner_mask(mask)
        flat = array_ops.reshape(inputs, array_ops.concat([[-1], array_ops.shape(inputs)[2:]],
                                                          0))
        if self.layer.supports_masking or \
                type(self.layer).compute_mask is not Layer.compute_mask:
            inner_mask = self.layer.compute_mask(flat, inner_mask)
        else:
            inner_mask = None
        if inner_mask is None:
            return mask
        shape = array_ops.shape(inputs)
        return array_ops.reshape(inner_mask, array_ops.concat(
            [shape[:2], array_ops.shape(inner_mask)[1:]], 0))

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        kwargs = {"training": training} if training is not None and \
            getattr(self.layer, "_expects_training", False) else {}
        if mask is not None and getattr(self.layer, "_expects_mask_arg", False):
            kwargs["mask"] = self._inner_mask(mask)
        shape = array_ops.shape(inputs)
        flat = array_ops.reshape(inputs, array_ops.concat([[-1], shape[2:]], 0))
        flat.set_shape(shape_lib.TensorShape([None]).concatenate(inputs.shape[2:]))
        y = self.layer.call(flat, **kwargs)
        out = array_ops.reshape(y, array_ops.concat([shape[:2], array_ops.shape(y)[1:]], 0))
        out.set_shape(inputs.shape[:2].concatenate(y.shape[1:]))
        return out
