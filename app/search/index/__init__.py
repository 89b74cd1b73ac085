"""What an index generation holds and its life: the schema, builds and updates, the arrays, columns
and vectors, publishing, checking and opening a generation, the keeper; Whoosh's private names
only under whoosh/.
"""
