"""Benchmarks: each builds or opens the catalog's index as the app does, so the features'
parts of an index generation are registered first (app/feature_parts.py)."""

from app.feature_parts import register_parts

register_parts()
