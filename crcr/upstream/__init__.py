"""PyTorch upstream at a dispatched SHA: the git source, the core overlay, the
generated local fixture and regression attribution (see crcr/README.md)."""
