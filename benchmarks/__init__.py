"""Rerunnable benchmarks of indexing, search, updates, start-up and memory (issue 6).

Run ``python -m benchmarks all --files 10000 --write`` to regenerate ``RESULTS.md``.
"""
