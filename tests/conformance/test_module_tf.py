"""Reference tier: ``tf.Module`` against TF's — names, name scopes, variable and submodule
discovery order, with_name_scope, errors. Skipped without TensorFlow."""

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _facts(lib):
    class Dense(lib.Module):
        def __init__(self, units, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = lib.Variable(lib.ones([3, units]), name="w")
                self.b = lib.Variable(lib.zeros([units]), name="b", trainable=False)

        @lib.Module.with_name_scope
        def __call__(self, x):
            return lib.matmul(x, self.w) + self.b

    class MLPModel(lib.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(3, name="first"), Dense(2)]
            self.extra = {"shared": self.layers[0], "scale": lib.Variable(2.0, name="scale")}
            self.out = Dense(1, name="out")

    with lib.Graph().as_default():
        model = MLPModel()
        y = model.layers[1](model.layers[0](lib.ones([1, 3])))
        again = MLPModel()
        names = lambda vs: [v.name for v in vs]  # noqa: E731
        variable_ids = {id(v) for v in model.variables}
        facts = {
            "name": (model.name, again.name, Dense(1).name),
            "variables": names(model.variables),
            "trainable": names(model.trainable_variables),
            "submodules": [m.name for m in model.submodules],
            "flatten_paths": [p for p, _ in model._flatten(
                predicate=lambda v: id(v) in variable_ids, with_path=True)],
            "op": y.op.name,
        }
    try:
        lib.Module(name="not valid")
    except ValueError as e:
        facts["error"] = str(e)
    return facts


def test_module_behaves_as_tf():
    assert _facts(tf) == _facts(tf1)
