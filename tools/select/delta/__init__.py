"""Delta: what changes between two PyTorch versions' test trees, and the wheels to compare."""
