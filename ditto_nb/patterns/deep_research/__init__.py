"""ditto_nb.patterns.deep_research."""
