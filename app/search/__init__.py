"""Full-text search over the catalog: a Whoosh index derived from the database."""
