"""ditto_nb.web.search."""
