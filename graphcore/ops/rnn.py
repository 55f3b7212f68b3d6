"""TF1's RNN drivers: ``tf.nn.dynamic_rnn`` (a while loop over TensorArrays of the time
steps), ``bidirectional_dynamic_rnn``, ``raw_rnn``, and the unrolled ``static_rnn`` /
``static_bidirectional_rnn``. Past a sequence's length the output is zeros and the
state is copied through, as TF's."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import nest, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, manip_ops, math_ops
from graphcore.ops import variable_scope as vs
from graphcore.ops.rnn_cell_impl import _concat, assert_like_rnncell
from graphcore.ops.tensor_array_ops import TensorArray
from graphcore.ops.while_loop import while_loop

__all__ = ["dynamic_rnn", "bidirectional_dynamic_rnn", "raw_rnn", "static_rnn",
           "static_bidirectional_rnn"]


def _transpose_batch_time(x: Any) -> Any:
    """Swaps the first two dimensions of ``x`` (batch-major <-> time-major)."""
    x_static_shape = x.get_shape()
    if x_static_shape.ndims is not None and x_static_shape.ndims < 2:
        return x
    x_rank = array_ops.rank(x)
    x_t = array_ops.transpose(
        x, array_ops.concat(([1, 0], math_ops.range(2, x_rank)), axis=0))
    dims = x_static_shape.dims
    if dims is not None:
        x_t.set_shape(shape_lib.TensorShape([dims[1].value, dims[0].value]).concatenate(
            x_static_shape[2:]))
    return x_t


def _best_effort_input_batch_size(flat_input: list) -> Any:
    for input_ in flat_input:
        shape = input_.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(f"Input tensor should have rank >= 2. Received input={input_} "
                             f"of rank {shape.ndims}")
        batch_size = shape.dims[1].value
        if batch_size is not None:
            return batch_size
    return array_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype: Any, state: Any) -> Any:
    if explicit_dtype is not None:
        return explicit_dtype
    if nest.is_nested(state):
        inferred = [element.dtype for element in nest.flatten(state)]
        if not inferred:
            raise ValueError(f"Unable to infer dtype from argument state={state}.")
        if not all(x == inferred[0] for x in inferred):
            raise ValueError(
                f"Argument state={state} has tensors of different inferred dtypes. Unable "
                "to infer a single representative dtype. Dtypes received: "
                f"{inferred}")
        return inferred[0]
    return state.dtype


def _maybe_tensor_shape_from_tensor(shape: Any) -> Any:
    if isinstance(shape, ops_lib.Tensor):
        return shape_lib.as_shape(tensor_util.constant_value(shape))
    return shape


def _should_cache() -> bool:
    """Variables read once outside loops (TF caches the read on the reader's device)."""
    ctxt = ops_lib.get_default_graph()._get_control_flow_context()
    return ctxt is None or ctxt.GetWhileContext() is None


def _cache_reads(varscope: vs.VariableScope) -> None:
    if _should_cache() and varscope.caching_device is None:
        varscope.set_caching_device(lambda op: op.device)


def _initial_state(cell: Any, initial_state: Any, batch_size: Any, dtype: Any) -> Any:
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If no initial_state is provided, argument `dtype` must be "
                         "specified")
    return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)


def _rnn_step(time: Any, sequence_length: Any, min_sequence_length: Any,
              max_sequence_length: Any, zero_output: Any, state: Any, call_cell: Any,
              state_size: Any, skip_conditionals: bool = False) -> tuple:
    """One step with sequence lengths: zeros out and the state copied through for the
    batch entries whose sequence has ended."""
    del state_size
    flat_state = nest.flatten(state)
    flat_zero_output = nest.flatten(zero_output)
    copy_cond = time >= sequence_length

    def copy_one_through(output: Any, new_output: Any) -> Any:
        if isinstance(output, TensorArray) or output.shape.ndims == 0:
            return new_output
        with ops_lib.colocate_with(new_output):
            return array_ops.where(copy_cond, output, new_output)

    def copy_some_through(flat_new_output: list, flat_new_state: list) -> list:
        return ([copy_one_through(z, o) for z, o in zip(flat_zero_output, flat_new_output)]
                + [copy_one_through(s, n) for s, n in zip(flat_state, flat_new_state)])

    def cell_outputs() -> tuple:
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output)
        nest.assert_same_structure(state, new_state)
        return nest.flatten(new_output), nest.flatten(new_state)

    def maybe_copy_some_through() -> list:
        flat_new_output, flat_new_state = cell_outputs()
        return control_flow_ops.cond(
            time < min_sequence_length, lambda: flat_new_output + flat_new_state,
            lambda: copy_some_through(flat_new_output, flat_new_state))

    if skip_conditionals:
        final_output_and_state = copy_some_through(*cell_outputs())
    else:
        final_output_and_state = control_flow_ops.cond(
            time >= max_sequence_length, lambda: flat_zero_output + flat_state,
            maybe_copy_some_through)
    final_output = final_output_and_state[:len(flat_zero_output)]
    final_state = final_output_and_state[len(flat_zero_output):]
    for output, flat_output in zip(final_output, flat_zero_output):
        output.set_shape(flat_output.get_shape())
    for substate, flat_substate in zip(final_state, flat_state):
        if not isinstance(substate, TensorArray):
            substate.set_shape(flat_substate.get_shape())
    return (nest.pack_sequence_as(zero_output, final_output),
            nest.pack_sequence_as(state, final_state))


def _reverse_seq(input_seq: list, lengths: Any) -> list:
    """``input_seq`` (a list of time steps) reversed, per batch entry up to its length."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_input_seq = tuple(nest.flatten(input_) for input_ in input_seq)
    flat_results: list[list] = [[] for _ in range(len(input_seq))]
    for sequence in zip(*flat_input_seq):
        input_shape = shape_lib.unknown_shape(rank=sequence[0].get_shape().ndims)
        for input_ in sequence:
            input_shape.assert_is_compatible_with(input_.get_shape())
            input_.set_shape(input_shape)
        s_joined = array_ops.stack(sequence)
        s_reversed = manip_ops.reverse_sequence(s_joined, lengths, 0, 1)
        result = array_ops.unstack(s_reversed)
        for r, flat_result in zip(result, flat_results):
            r.set_shape(input_shape)
            flat_result.append(r)
    return [nest.pack_sequence_as(input_, flat_result)
            for input_, flat_result in zip(input_seq, flat_results)]


def dynamic_rnn(cell: Any, inputs: Any, sequence_length: Any = None, initial_state: Any = None,
                dtype: Any = None, parallel_iterations: int | None = None,
                swap_memory: bool = False, time_major: bool = False,
                scope: Any = None) -> tuple:
    """Runs ``cell`` over the time steps of ``inputs`` in a while loop; returns
    ``(outputs, final_state)``."""
    assert_like_rnncell("cell", cell)
    with vs.variable_scope(scope or "rnn") as varscope:
        _cache_reads(varscope)
        flat_input = nest.flatten(inputs)
        if not time_major:
            flat_input = [convert_to_tensor(input_) for input_ in flat_input]
            flat_input = tuple(_transpose_batch_time(input_) for input_ in flat_input)
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes_lib.int32)
            if sequence_length.get_shape().ndims not in (None, 1):
                raise ValueError(
                    "Argument sequence_length must be a vector of length batch_size. "
                    f"Received sequence_length={sequence_length} of shape: "
                    f"{sequence_length.get_shape()}")
            sequence_length = array_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        state = _initial_state(cell, initial_state, batch_size, dtype)

        def assert_has_shape(x: Any, shape: list) -> Any:
            x_shape = array_ops.shape(x)
            packed_shape = array_ops.stack(shape)
            return control_flow_ops.Assert(
                math_ops.reduce_all(math_ops.equal(x_shape, packed_shape)),
                [f"Expected shape for Tensor {x.name} is ", packed_shape,
                 " but saw shape: ", x_shape])

        if sequence_length is not None:
            with ops_lib.control_dependencies(
                    [assert_has_shape(sequence_length, [batch_size])]):
                sequence_length = array_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = nest.pack_sequence_as(inputs, list(flat_input))
        outputs, final_state = _dynamic_rnn_loop(
            cell, inputs, state, parallel_iterations=parallel_iterations,
            swap_memory=swap_memory, sequence_length=sequence_length, dtype=dtype)
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _dynamic_rnn_loop(cell: Any, inputs: Any, initial_state: Any, parallel_iterations: int,
                      swap_memory: bool, sequence_length: Any = None,
                      dtype: Any = None) -> tuple:
    state = initial_state
    state_size = cell.state_size
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    input_shape = array_ops.shape(flat_input[0])
    time_steps = input_shape[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    inputs_got_shape = tuple(input_.get_shape().with_rank_at_least(3)
                             for input_ in flat_input)
    const_time_steps, const_batch_size = inputs_got_shape[0].as_list()[:2]
    for i, shape in enumerate(inputs_got_shape):
        if not shape[2:].is_fully_defined():
            raise ValueError("Input size (depth of inputs) must be accessible via shape "
                             f"inference, but saw value None for input={flat_input[i]}.")
        if const_time_steps != shape.dims[0].value:
            raise ValueError("Time steps is not the same for all the elements in the input "
                             f"in a batch. Received time steps={shape.dims[0].value} for "
                             f"input={flat_input[i]}.")
        if const_batch_size != shape.dims[1].value:
            raise ValueError("Batch_size is not the same for all the elements in the input. "
                             f"Received batch size={shape.dims[1].value} for "
                             f"input={flat_input[i]}.")
    state_dtype = _infer_state_dtype(dtype, state)

    def create_zero_arrays(size: Any) -> Any:
        return array_ops.zeros(array_ops.stack(_concat(batch_size, size)), state_dtype)

    flat_zero_output = tuple(create_zero_arrays(output) for output in flat_output_size)
    zero_output = nest.pack_sequence_as(cell.output_size, list(flat_zero_output))
    if sequence_length is not None:
        min_sequence_length = math_ops.reduce_min(sequence_length)
        max_sequence_length = math_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = array_ops.constant(0, dtype=dtypes_lib.int32, name="time")
    with ops_lib.name_scope("dynamic_rnn") as base_name:
        pass

    def create_ta(name: str, element_shape: Any, dtype: Any) -> TensorArray:
        return TensorArray(dtype=dtype, size=time_steps, element_shape=element_shape,
                           tensor_array_name=base_name + name)

    output_ta = tuple(
        create_ta(f"output_{i}", element_shape=shape_lib.TensorShape(
            [const_batch_size]).concatenate(_maybe_tensor_shape_from_tensor(out_size)),
            dtype=state_dtype)
        for i, out_size in enumerate(flat_output_size))
    input_ta = tuple(create_ta(f"input_{i}", element_shape=flat_input_i.shape[1:],
                               dtype=flat_input_i.dtype)
                     for i, flat_input_i in enumerate(flat_input))
    input_ta = tuple(ta.unstack(input_) for ta, input_ in zip(input_ta, flat_input))

    def time_step(time: Any, output_ta_t: tuple, state: Any) -> tuple:
        input_t = tuple(ta.read(time) for ta in input_ta)
        for input_, shape in zip(input_t, inputs_got_shape):
            input_.set_shape(shape[1:])
        input_t = nest.pack_sequence_as(inputs, list(input_t))

        def call_cell() -> tuple:
            return cell(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(
                time=time, sequence_length=sequence_length,
                min_sequence_length=min_sequence_length,
                max_sequence_length=max_sequence_length, zero_output=zero_output,
                state=state, call_cell=call_cell, state_size=state_size,
                skip_conditionals=True)
        else:
            output, new_state = call_cell()
        output = nest.flatten(output)
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, output))
        return time + 1, output_ta_t, new_state

    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = while_loop(
        cond=lambda time, *_: time < loop_bound, body=time_step,
        loop_vars=(time, output_ta, state), parallel_iterations=parallel_iterations,
        maximum_iterations=time_steps, swap_memory=swap_memory)
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, output_size in zip(final_outputs, flat_output_size):
        output.set_shape(_concat([const_time_steps, const_batch_size], output_size,
                                 static=True))
    return nest.pack_sequence_as(cell.output_size, list(final_outputs)), final_state


def bidirectional_dynamic_rnn(cell_fw: Any, cell_bw: Any, inputs: Any,
                              sequence_length: Any = None, initial_state_fw: Any = None,
                              initial_state_bw: Any = None, dtype: Any = None,
                              parallel_iterations: int | None = None,
                              swap_memory: bool = False, time_major: bool = False,
                              scope: Any = None) -> tuple:
    """A forward and a backward ``dynamic_rnn`` (the backward one over the reversed
    sequences); returns ``((output_fw, output_bw), (state_fw, state_bw))``."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)

    def reverse(input_: Any) -> Any:
        if sequence_length is not None:
            return manip_ops.reverse_sequence(input=input_, seq_lengths=sequence_length,
                                              seq_axis=time_axis, batch_axis=batch_axis)
        return array_ops.reverse(input_, axis=[time_axis])

    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell=cell_fw, inputs=inputs, sequence_length=sequence_length,
                initial_state=initial_state_fw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            inputs_reverse = nest.map_structure(reverse, inputs)
            tmp, output_state_bw = dynamic_rnn(
                cell=cell_bw, inputs=inputs_reverse, sequence_length=sequence_length,
                initial_state=initial_state_bw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=bw_scope)
    output_bw = reverse(tmp)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)


def raw_rnn(cell: Any, loop_fn: Any, parallel_iterations: int | None = None,
            swap_memory: bool = False, scope: Any = None) -> tuple:
    """An RNN whose inputs, stopping and emitted values come from ``loop_fn(time,
    cell_output, cell_state, loop_state)``; returns ``(emit_ta, final_state,
    final_loop_state)``."""
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError(f"Argument `loop_fn` must be a callable. Received: {loop_fn}.")
    parallel_iterations = parallel_iterations or 32
    with vs.variable_scope(scope or "rnn") as varscope:
        _cache_reads(varscope)
        time = array_ops.constant(0, dtype=dtypes_lib.int32)
        (elements_finished, next_input, initial_state, emit_structure,
         init_loop_state) = loop_fn(time, None, None, None)
        flat_input = nest.flatten(next_input)
        loop_state = (init_loop_state if init_loop_state is not None
                      else array_ops.constant(0, dtype=dtypes_lib.int32))
        input_shape = [input_.get_shape() for input_ in flat_input]
        static_batch_size = input_shape[0].with_rank_at_least(1).dims[0]
        for input_shape_i in input_shape:
            static_batch_size.assert_is_compatible_with(
                input_shape_i.with_rank_at_least(1).dims[0])
        const_batch_size = static_batch_size.value
        batch_size = (const_batch_size if const_batch_size is not None
                      else array_ops.shape(flat_input[0])[0])
        nest.assert_same_structure(initial_state, cell.state_size)
        state = nest.pack_sequence_as(
            initial_state, [convert_to_tensor(s) for s in nest.flatten(initial_state)])
        flat_state = nest.flatten(state)
        if emit_structure is not None:
            flat_emit_structure = nest.flatten(emit_structure)
            flat_emit_size = [emit.shape if emit.shape.is_fully_defined()
                              else array_ops.shape(emit) for emit in flat_emit_structure]
            flat_emit_dtypes = [emit.dtype for emit in flat_emit_structure]
        else:
            emit_structure = cell.output_size
            flat_emit_size = nest.flatten(emit_structure)
            flat_emit_dtypes = [flat_state[0].dtype] * len(flat_emit_size)
        flat_emit_ta = [
            TensorArray(dtype=dtype_i, dynamic_size=True, size=0, name=f"rnn_output_{i}",
                        element_shape=shape_lib.TensorShape([const_batch_size]).concatenate(
                            _maybe_tensor_shape_from_tensor(size_i)))
            for i, (dtype_i, size_i) in enumerate(zip(flat_emit_dtypes, flat_emit_size))]
        emit_ta = nest.pack_sequence_as(emit_structure, flat_emit_ta)
        flat_zero_emit = [array_ops.zeros(_concat(batch_size, size_i), dtype_i)
                          for size_i, dtype_i in zip(flat_emit_size, flat_emit_dtypes)]
        zero_emit = nest.pack_sequence_as(emit_structure, flat_zero_emit)

        def condition(unused_time: Any, elements_finished: Any, *_: Any) -> Any:
            return math_ops.logical_not(math_ops.reduce_all(elements_finished))

        def body(time: Any, elements_finished: Any, current_input: Any, emit_ta: Any,
                 state: Any, loop_state: Any) -> tuple:
            next_output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            nest.assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            (next_finished, next_input, next_state, emit_output,
             next_loop_state) = loop_fn(next_time, next_output, cell_state, loop_state)
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(current_input, next_input)
            nest.assert_same_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state

            def copy_some_through(current: Any, candidate: Any) -> Any:
                def copy_fn(cur_i: Any, cand_i: Any) -> Any:
                    if isinstance(cur_i, TensorArray) or cur_i.shape.ndims == 0:
                        return cand_i
                    with ops_lib.colocate_with(cand_i):
                        return array_ops.where(elements_finished, cur_i, cand_i)

                return nest.map_structure(copy_fn, current, candidate)

            emit_output = copy_some_through(zero_emit, emit_output)
            next_state = copy_some_through(state, next_state)
            emit_ta = nest.map_structure(lambda ta, emit: ta.write(time, emit), emit_ta,
                                         emit_output)
            elements_finished = math_ops.logical_or(elements_finished, next_finished)
            return (next_time, elements_finished, next_input, emit_ta, next_state,
                    loop_state)

        returned = while_loop(
            condition, body,
            loop_vars=[time, elements_finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations, swap_memory=swap_memory)
        emit_ta, final_state, final_loop_state = returned[-3:]
        if init_loop_state is None:
            final_loop_state = None
        return emit_ta, final_state, final_loop_state


def static_rnn(cell: Any, inputs: list, initial_state: Any = None, dtype: Any = None,
               sequence_length: Any = None, scope: Any = None) -> tuple:
    """``cell`` unrolled over the list ``inputs`` (one [batch, input_size] tensor per
    step); returns ``(outputs, state)``."""
    assert_like_rnncell("cell", cell)
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    outputs = []
    with vs.variable_scope(scope or "rnn") as varscope:
        _cache_reads(varscope)
        first_input = inputs
        while nest.is_nested(first_input):
            first_input = first_input[0]
        if first_input.get_shape().ndims != 1:
            input_shape = first_input.get_shape().with_rank_at_least(2)
            fixed_batch_size = input_shape.dims[0]
            for flat_input in nest.flatten(inputs):
                input_shape = flat_input.get_shape().with_rank_at_least(2)
                fixed_batch_size.assert_is_compatible_with(input_shape.dims[0])
                for i, size in enumerate(input_shape[1:].dims):
                    if size.value is None:
                        raise ValueError(
                            f"Input size (dimension {i} of input {flat_input}) must be "
                            "accessible via shape inference, but saw value None.")
        else:
            fixed_batch_size = first_input.get_shape().with_rank_at_least(1).dims[0]
        batch_size = (fixed_batch_size.value if fixed_batch_size.value
                      else array_ops.shape(first_input)[0])
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.get_shape().ndims not in (None, 1):
                raise ValueError("Argument `sequence_length` must be a vector of length "
                                 f"{batch_size}. Received "
                                 f"sequence_length={sequence_length}.")

            def create_zero_output(output_size: Any) -> Any:
                output = array_ops.zeros(array_ops.stack(_concat(batch_size, output_size)),
                                         _infer_state_dtype(dtype, state))
                output.set_shape(shape_lib.TensorShape(
                    _concat(fixed_batch_size.value, output_size, static=True)))
                return output

            output_size = cell.output_size
            zero_output = nest.pack_sequence_as(
                output_size, [create_zero_output(s) for s in nest.flatten(output_size)])
            sequence_length = math_ops.cast(sequence_length, dtypes_lib.int32)
            min_sequence_length = math_ops.reduce_min(sequence_length)
            max_sequence_length = math_ops.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_: Any = input_, state: Any = state) -> tuple:
                return cell(input_, state)

            if sequence_length is not None:
                output, state = _rnn_step(
                    time=time, sequence_length=sequence_length,
                    min_sequence_length=min_sequence_length,
                    max_sequence_length=max_sequence_length, zero_output=zero_output,
                    state=state, call_cell=call_cell, state_size=cell.state_size)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def static_bidirectional_rnn(cell_fw: Any, cell_bw: Any, inputs: list,
                             initial_state_fw: Any = None, initial_state_bw: Any = None,
                             dtype: Any = None, sequence_length: Any = None,
                             scope: Any = None) -> tuple:
    """Forward and backward ``static_rnn``; returns ``(outputs, output_state_fw,
    output_state_bw)`` with each output the depth concatenation of both."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = static_rnn(
                cell_fw, inputs, initial_state_fw, dtype, sequence_length, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, output_state_bw = static_rnn(
                cell_bw, reversed_inputs, initial_state_bw, dtype, sequence_length,
                scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_outputs = tuple(array_ops.concat([fw, bw], 1) for fw, bw in
                         zip(nest.flatten(output_fw), nest.flatten(output_bw)))
    outputs = nest.pack_sequence_as(output_fw, list(flat_outputs))
    return outputs, output_state_fw, output_state_bw
