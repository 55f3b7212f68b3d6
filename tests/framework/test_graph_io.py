"""graphcore/framework/graph_io.py: tf.train.write_graph as text and binary."""

from google.protobuf import text_format

import graphcore as tf


def test_write_graph_text_and_binary(tmp_path):
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="c")
    text = tf.train.write_graph(g, str(tmp_path / "new" / "dir"), "g.pbtxt")
    assert text == str(tmp_path / "new" / "dir" / "g.pbtxt")
    parsed = text_format.Parse(open(text).read(), tf.GraphDef())
    assert [n.name for n in parsed.node] == ["c"]
    binary = tf.io.write_graph(g.as_graph_def(), str(tmp_path), "g.pb", as_text=False)
    assert tf.GraphDef.FromString(open(binary, "rb").read()) == g.as_graph_def()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.pb", "new"]
