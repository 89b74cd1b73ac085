"""What's new: the words and two-word phrases whose share of papers rose at an edition or in
a year, the terms met for the first time, and trends of a few queries year by year.

- `edition_terms.py`: each edition's papers per term, counted from the index's postings when
  a generation is written (`term_counts.py`: what's new's part of every generation, which
  registers with it, app/feature_parts.py);
- `concepts.py`: which counted terms name research concepts, and how papers write them;
- `rising.py`: what rose, ranked by weighted log-odds, at an edition or in a year;
- `trend_lines.py`: papers per year for a few queries, the year facet of each search.

The pages that show it are in web/: venues.py (the home, series and edition pages) and
trends.py (/trends, /api/whats-new, /api/trends).
"""
