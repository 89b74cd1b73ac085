"""A browsable catalog of machine-learning conference paper abstracts."""
