"""CPU (numpy) kernels of the nn ops."""
