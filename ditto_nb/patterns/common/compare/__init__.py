"""The comparison engine both patterns share (pure): a two-sided comparison answered from one
set of verified quotes per side, decided by code where it can.

Web QA's answer rules and compare step, and deep research's compared findings
(:mod:`ditto_nb.patterns.deep_research.compared`), use the same modules:

- :mod:`~ditto_nb.patterns.common.compare.comparison`: the order a question asks for, one value per
  side, orderings and nationality decided by code;
- :mod:`~ditto_nb.patterns.common.compare.kinds`: a ``both <kind>`` question decided from each
  side's defining clause;
- :mod:`~ditto_nb.patterns.common.compare.sides`: code-made side claims (the page sentences about
  the compared fact);
- :mod:`~ditto_nb.patterns.common.compare.side_by_side`: the answer form a comparison asks for and
  the answer published from one claim per side;
- :mod:`~ditto_nb.patterns.common.compare.values`: what the ``compare`` call is shown and the
  answer its output gives (two values decided by code);
- :mod:`~ditto_nb.patterns.common.compare.prompt` and
  :mod:`~ditto_nb.patterns.common.compare.schema`: the ``compare`` call's shared prompt part and
  output schema.

Nothing here imports either pattern.
"""
