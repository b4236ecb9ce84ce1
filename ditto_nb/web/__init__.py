"""ditto_nb.web."""
