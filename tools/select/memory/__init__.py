"""Stage 2, repository memory: symbols, summaries, embeddings and CPU traces in SQLite, rebuilt incrementally."""
