"""Search by meaning: a sentence encoder that embeds papers and queries, in numpy."""
