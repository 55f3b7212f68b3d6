"""CPU (numpy) kernels of the random ops."""
