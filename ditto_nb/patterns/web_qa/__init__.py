"""ditto_nb.patterns.web_qa."""
