"""Benchmarks; `python -m bench` runs them all (results recorded in docs/PERFORMANCE.md)."""
