"""tf.summary: summary ops and the TensorBoard FileWriter."""
