"""tf.flags (graphcore/platform/flags.py): absl's flags, with TF's implicit parse of
sys.argv on the first read and its old keyword names."""

import logging

import pytest

import graphcore as tf
from graphcore.platform import flags as flags_lib


@pytest.fixture
def fresh():
    """A FlagValues of its own, wrapped as tf.flags.FLAGS is."""
    values = flags_lib.FlagValues()
    return values, flags_lib._FlagValuesWrapper(values)


def test_reading_a_flag_before_parsing_parses_sys_argv(fresh, monkeypatch):
    values, wrapped = fresh
    tf.flags.DEFINE_integer("batch_size", 32, "Batch size.", flag_values=values)
    tf.flags.DEFINE_string("data_dir", "/tmp", "Data.", flag_values=values)
    monkeypatch.setattr("sys.argv", ["prog", "--batch_size=8"])
    assert not values.is_parsed()
    assert wrapped.batch_size == 8
    assert values.is_parsed() and wrapped.data_dir == "/tmp"
    # plain absl raises instead
    other = flags_lib.FlagValues()
    flags_lib.DEFINE_integer("n", 1, "n", flag_values=other)
    with pytest.raises(flags_lib.UnparsedFlagAccessError):
        _ = other.n


def test_wrapper_passes_through_set_item_len_and_call(fresh):
    values, wrapped = fresh
    tf.app.flags.DEFINE_boolean("fake", False, "Fake.", flag_values=values)
    tf.flags.DEFINE_list("hosts", [], "Hosts.", flag_values=values)
    assert wrapped(["prog", "--fake", "--hosts=a,b", "left"]) == ["prog", "left"]
    assert (wrapped.fake, wrapped["hosts"].value, len(wrapped)) == (True, ["a", "b"], 2)
    wrapped.fake = False
    assert values.fake is False and "fake" in dir(wrapped)
    with pytest.raises(flags_lib.UnrecognizedFlagError, match="Unknown command line flag"):
        wrapped(["prog", "--nope"])


def test_old_keyword_names_are_accepted_with_a_warning(fresh, caplog):
    values, wrapped = fresh
    with caplog.at_level(logging.WARNING):
        tf.flags.DEFINE_float(flag_name="lr", default_value=0.5, docstring="Rate.",
                              flag_values=values)
    assert "deprecated, please use (name, default, help)" in caplog.text
    wrapped(["prog"])
    assert wrapped.lr == 0.5 and values["lr"].help == "Rate."


def test_namespaces_are_the_same_module():
    assert tf.app.flags.FLAGS is tf.flags.FLAGS
    assert tf.flags.DEFINE_bool is tf.flags.DEFINE_boolean
    assert tf.app.flags.DEFINE_enum is tf.flags.DEFINE_enum
