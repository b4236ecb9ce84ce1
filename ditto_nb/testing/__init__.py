"""Test support shipped with ditto_nb: the scripted model server and the MemoryStore conformance
suite (importable by other backends' test suites, notebooks and benchmarks).

``memory_conformance`` is not imported here (it imports the workers); import it directly.
"""

from ditto_nb.testing.scripted_config import SCRIPTED_PROVIDER, scripted_runtime_config
from ditto_nb.testing.scripted_model import PURPOSE_HEADER, ScriptedModel, ScriptedReply

__all__ = ["PURPOSE_HEADER", "SCRIPTED_PROVIDER", "ScriptedModel", "ScriptedReply", "scripted_runtime_config"]
