"""Offline test selection for privateuse1 backends.

Four stages (scope -> memory -> bucket -> refine) plus a version delta; see README.md.
"""
