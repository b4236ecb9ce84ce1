"""The llama.cpp server's prompt-state cache settings (flags of ``llama_cpp.server``, passed by
:meth:`ditto_nb.local_model.server.LocalModelServer.command`)."""

from __future__ import annotations

PROMPT_CACHE_BYTES = 512 * 1024 * 1024
"""Bytes of llama.cpp context states the server keeps (llama-cpp-python's ``LlamaRAMCache``,
``--cache True --cache_type ram``), keyed by the tokens each call evaluated. A call restores the
state sharing its longest token prefix, so a prompt that starts like an earlier one reads only what
follows, even after other prompts used the server: Web QA's one system message
(:data:`ditto_nb.patterns.web_qa.prompts.SYSTEM`, 888 tokens, ~17 s to read on 2 cores) is read
once per server, not once per question. A state holds ~28 KB per token for the 1.5B model, so
512 MiB keeps ~8 recent prompts of ~2,000 tokens; the least recently used goes first."""
PROMPT_BATCH = 128
"""``--n_batch`` (tokens per prompt-evaluation batch). Each cached state also copies the last
``n_batch`` rows of logits (``n_batch`` x vocabulary x 4 bytes: 78 MB at 128, 311 MB at the default
512); measured on 2 cores, 128 reads prompts as fast as 512 (1,515 tokens: 28.2 s vs 29.6 s), and a
call restoring a 1,515-token state answered in 1.4 s instead of 3.3 s (docs/LOCAL_MODEL.md)."""


__all__ = ["PROMPT_BATCH", "PROMPT_CACHE_BYTES"]
