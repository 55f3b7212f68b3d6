"""MNIST input helpers for the TF1 tutorials (``tensorflow.examples.tutorials.mnist``)."""
