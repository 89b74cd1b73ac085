"""List files → parsed records → normalized papers → one SQLite transaction."""
