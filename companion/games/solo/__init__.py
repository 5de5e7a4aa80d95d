"""Tightrope, the solo game of intrigue with two packs of playing cards (v0.1, 2025): its rules
(docs/rules-solo.md)."""
