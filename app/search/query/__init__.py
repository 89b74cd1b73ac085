"""Reading the search box: the query language, a query's parts, questions and descriptions, the
expansion of a word to its forms.
"""
