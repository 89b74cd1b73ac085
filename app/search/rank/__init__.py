"""Scoring and ordering: BM25F over posting arrays, matches, proximity, the ranking of a question,
meaning, related papers, filters, snippets and why a paper is shown; the weights.
"""
