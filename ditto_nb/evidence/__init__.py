"""ditto_nb.evidence."""
