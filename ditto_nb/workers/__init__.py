"""The four Workers: Context (Redis), Memory (MemoryStore + SQLite), Infer (OpenAI-compatible),
Interaction (tool registry). See docs/ARCHITECTURE.md."""

from ditto_nb.workers.context import ContextWorker, EmbeddedRedis, create_context_worker
from ditto_nb.workers.infer import CallRecord, InferWorker, create_infer_worker, extract_json_object
from ditto_nb.workers.interaction import InteractionWorker, Tool, create_interaction_worker
from ditto_nb.workers.memory import MemoryStore, SqliteMemoryStore, TaskLock, open_task_store
from ditto_nb.workers.memory_worker import MemoryWorker, create_memory_worker

__all__ = [
    "CallRecord",
    "ContextWorker",
    "EmbeddedRedis",
    "InferWorker",
    "InteractionWorker",
    "MemoryStore",
    "MemoryWorker",
    "SqliteMemoryStore",
    "TaskLock",
    "Tool",
    "create_context_worker",
    "create_infer_worker",
    "create_interaction_worker",
    "create_memory_worker",
    "extract_json_object",
    "open_task_store",
]
