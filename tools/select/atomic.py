"""Whole-file writes for the selection pipeline: testing.results.atomic's, under the name
select's modules import (bucket, refine, yamlio, cli)."""

from __future__ import annotations

from testing.results.atomic import write_text

__all__ = ["write_text"]
