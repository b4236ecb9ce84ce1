"""ditto_nb.notebook."""
