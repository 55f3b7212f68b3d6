"""Stand-ins for the data helpers of TensorFlow's tutorials (``tensorflow.examples``)."""
