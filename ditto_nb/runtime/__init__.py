"""ditto_nb.runtime."""
