"""Stage 4, refine: device-run results (JUnit) -> reviewed bucket changes in the config."""
