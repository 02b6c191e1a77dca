"""Test adaptation for out-of-tree PyTorch backends: plugin, in-tree suites, tests."""
