"""ditto_nb.sandbox."""
