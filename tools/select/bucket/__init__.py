"""Stage 3, bucket: facts + capabilities -> outcome bucket with a rationale, and the config written from it."""
