"""HTML pages and their JSON twins."""
