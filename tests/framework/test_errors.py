"""Unit tests for graphcore.framework.errors / graphcore.errors (no TensorFlow needed)."""

import pickle
import traceback

import pytest

import graphcore.errors as public_errors
from graphcore import errors
from graphcore.framework import errors as fe

CODES = {
    "OK": 0, "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4,
    "NOT_FOUND": 5, "ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8,
    "FAILED_PRECONDITION": 9, "ABORTED": 10, "OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12,
    "INTERNAL": 13, "UNAVAILABLE": 14, "DATA_LOSS": 15, "UNAUTHENTICATED": 16,
}

CLASSES = {
    "CancelledError": 1, "UnknownError": 2, "InvalidArgumentError": 3,
    "DeadlineExceededError": 4, "NotFoundError": 5, "AlreadyExistsError": 6,
    "PermissionDeniedError": 7, "ResourceExhaustedError": 8, "FailedPreconditionError": 9,
    "AbortedError": 10, "OutOfRangeError": 11, "UnimplementedError": 12, "InternalError": 13,
    "UnavailableError": 14, "DataLossError": 15, "UnauthenticatedError": 16,
}


class FakeOp:
    """Stands in for a graph Operation: unpicklable, with a creation traceback."""

    def __init__(self, name, tb, original_op=None):
        self.name = name
        self.type = "Fake"
        self.traceback = tb
        self._original_op = original_op
        self._lock = __import__("threading").Lock()  # makes it unpicklable


TB = [("/src/model.py", 10, "<module>", "x = tf.add(a, b)"),
      ("/src/layers.py", 42, "build", "return tf.matmul(x, w)")]


def test_codes_and_reexports():
    for name, code in CODES.items():
        assert getattr(fe, name) == code
        assert getattr(errors, name) == code
    for name in ["OpError", "exception_type_from_error_code", "error_code_from_exception_type",
                 *CLASSES]:
        assert getattr(errors, name) is getattr(fe, name)
    assert public_errors.InvalidArgumentError is fe.InvalidArgumentError


@pytest.mark.parametrize("name, code", sorted(CLASSES.items()))
def test_subclasses(name, code):
    cls = getattr(errors, name)
    assert issubclass(cls, errors.OpError) and issubclass(cls, Exception)
    e = cls("nd", None, "boom")
    assert (e.node_def, e.op, e.message, e.error_code) == ("nd", None, "boom", code)
    assert e.experimental_payloads == {}
    assert str(e) == "boom"
    assert errors.exception_type_from_error_code(code) is cls
    assert errors.error_code_from_exception_type(cls) == code
    made = fe._make_specific_exception(None, None, "m", code)
    assert type(made) is cls and made.message == "m" and made.error_code == code
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is cls
    assert (back.node_def, back.op, back.message, back.error_code) == ("nd", None, "boom", code)
    with pytest.raises(cls):
        raise e


def test_op_error_base():
    e = errors.OpError(None, None, "msg", errors.INTERNAL)
    assert e.error_code == 13 and str(e) == "msg" and e.args == ()
    e2 = errors.OpError(None, None, "msg", errors.INTERNAL, {"k": b"v"})
    assert e2.experimental_payloads == {"k": b"v"}
    back = pickle.loads(pickle.dumps(e2))
    assert type(back) is errors.OpError and back.experimental_payloads == {"k": b"v"}
    assert errors.InvalidArgumentError(None, None, "m", {"p": 1}).experimental_payloads == {"p": 1}


def test_unknown_codes_and_classes():
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(errors.OK)
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(99)
    with pytest.warns(UserWarning, match="Unknown error code: 99"):
        e = fe._make_specific_exception(None, None, "m", 99)
    assert type(e) is errors.UnknownError and e.error_code == errors.UNKNOWN
    with pytest.warns(UserWarning, match="Unknown class exception"):
        assert errors.error_code_from_exception_type(ValueError) == errors.UNKNOWN


def test_str_with_op_traceback():
    op = FakeOp("MatMul_1", TB)
    e = errors.InvalidArgumentError(None, op, "Incompatible shapes")
    expected = (
        "Incompatible shapes\n\nCaused by op 'MatMul_1', defined at:\n"
        + "".join(traceback.format_list(TB))
        + "\nInvalidArgumentError (see above for traceback): Incompatible shapes\n"
    )
    assert str(e) == expected
    assert e.op is op


def test_str_without_traceback_attribute():
    class NoTb:
        name = "x"

    assert str(errors.NotFoundError(None, NoTb(), "nope")) == "nope"


def test_str_with_original_op():
    orig = FakeOp("orig", TB[:1])
    op = FakeOp("copy", TB, original_op=orig)
    s = str(errors.AbortedError(None, op, "m"))
    assert "Caused by op 'copy', defined at:" in s
    assert "...which was originally created as op 'orig', defined at:" in s
    assert s.endswith("AbortedError (see above for traceback): m\n")


def test_pickle_with_unpicklable_op_keeps_message_and_traceback():
    orig = FakeOp("orig", TB[:1])
    op = FakeOp("MatMul_1", TB, original_op=orig)
    e = errors.ResourceExhaustedError({"name": "MatMul_1"}, op, "OOM")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is errors.ResourceExhaustedError
    assert back.error_code == errors.RESOURCE_EXHAUSTED
    assert back.node_def == {"name": "MatMul_1"}
    assert back.op.name == "MatMul_1" and back.op.type == "Fake"
    assert back.op.traceback == TB
    assert str(back) == str(e)
    # Re-pickling a snapshot works too.
    assert str(pickle.loads(pickle.dumps(back))) == str(e)


def test_user_subclass_pickles():
    class MyError(errors.InvalidArgumentError):
        pass

    globals()["MyError"] = MyError
    MyError.__qualname__ = "MyError"
    try:
        back = pickle.loads(pickle.dumps(MyError(None, None, "x")))
        assert type(back) is MyError and back.error_code == errors.INVALID_ARGUMENT
    finally:
        del globals()["MyError"]
