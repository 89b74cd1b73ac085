"""The map of the catalog: where each paper lies (`layout.py`, placed from the papers'
vectors when an index generation is built, so it sits in the search layer), how the points
are drawn (`drawing.py`), and its pages and API (`routes.py`, in the web layer)."""
