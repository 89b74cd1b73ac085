"""What's new: the words and two-word phrases whose share of papers rose at an edition or in
a year, the terms met for the first time, and trends of a few queries year by year.

- `edition_terms.py`: each edition's papers per term, counted from the index's postings when
  a generation is written (`search/generation.HELD` writes and opens it, so it is in the
  search layer, as the engine's own parts are);
- `concepts.py`: which counted terms name research concepts, and how papers write them;
- `rising.py`: what rose, ranked by weighted log-odds, at an edition or in a year;
- `trends.py`: papers per year for a few queries, the year facet of each search.

The pages that show it are in web/: venues.py (the home, series and edition pages) and
trends.py (/trends, /api/whats-new, /api/trends).
"""
