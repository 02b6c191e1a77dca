"""Stage 1, scope: which upstream test files matter for the device's features (static `ast` reads)."""
