"""How text becomes terms and what the catalog's words are: the analyzer, spellings, lemmas,
acronyms and synonyms, the vocabulary, completions.
"""
