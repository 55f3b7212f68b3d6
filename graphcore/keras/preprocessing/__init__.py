"""tf.keras.preprocessing: ``sequence`` (pad_sequences) and ``text`` (Tokenizer and the
word-splitting helpers), plain numpy/Python as Keras' own. Not here: ``image``."""

# ruff: noqa: F401
from graphcore.keras.preprocessing import sequence, text
