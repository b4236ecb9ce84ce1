"""ditto_nb.local_model."""
