"""ditto_nb.workers."""
