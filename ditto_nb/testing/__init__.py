"""ditto_nb.testing."""
