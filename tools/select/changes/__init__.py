"""Stage 2b: the change -> tests map (per-test coverage of torch/**/*.py + the aten-op index)."""
