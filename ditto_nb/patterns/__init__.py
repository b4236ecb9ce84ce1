"""ditto_nb.patterns."""
