"""The one error tree of ditto_nb.

Every error the kit raises on purpose derives from :class:`DittoError`. Each class says, in its
docstring, what happened and what to do. ``retryable`` tells a caller whether the same call may
succeed later without any change (a transport fault) or not (a changed request, a corrupted
snapshot). ``help`` is a one-line hint for an analyst.

Tree::

    DittoError
    ├── ConfigError                      bad ditto.yaml / environment / arguments
    ├── InvalidRequest                   a request outside its documented ranges
    ├── RuntimeCoreError
    │   ├── GraphError                   invalid graph (duplicate id, unknown dependency, cycle, ...)
    │   ├── GraphBudgetExceeded          more than 128 graphs in one loop
    │   └── LoopCancelled                the loop's signal was aborted or timed out
    ├── WorkerError
    │   ├── ContextUnavailable           Redis unreachable (never an in-process fallback)
    │   ├── StorageError                 the MemoryStore failed (database error, bad schema)
    │   │   └── TaskLocked               another process holds the task directory
    │   ├── ModelError
    │   │   ├── ModelTransportError      network/HTTP failure talking to the model (retryable)
    │   │   │   └── ModelServerCrashed   the local llama.cpp server the kit runs exited (code/signal, log)
    │   │   ├── ModelOutputInvalid       empty or non-JSON or schema-invalid model content
    │   │   ├── ModelOutputTruncated     finish_reason == "length"
    │   │   └── ModelRefusal             null content or an explicit refusal
    │   ├── ToolNotFound                 no tool registered under that name
    │   └── ToolFailed                   a tool raised; ``tool`` names it, ``__cause__`` is the error
    ├── WebError
    │   ├── InvalidURL                   malformed URL or Location header
    │   ├── PolicyViolation              scheme / origin / address refused by the NetworkPolicy
    │   ├── RedirectLimit                more redirects than ``max_redirects`` (or a loop)
    │   ├── FetchError                   a page could not be fetched (``failure`` code, e.g. http-403)
    │   ├── SnapshotCorrupted            stored snapshot bytes no longer match their SHA-256
    │   └── SearchProviderError          a search provider failed entirely
    └── TaskError
        ├── RequestChanged               same task id, different question or policy
        ├── PermissionRevoked            an origin used by the task is no longer allowed
        ├── BudgetExceeded               a budget would be exceeded
        ├── UngroundedAnswer             the answer failed grounding even after one repair
        ├── SearchFailed                 every search of the stage failed
        ├── ReadFailed                   every page read of the stage failed
        ├── PublishFailed                output could not be written, or differs from what is there
        └── ReplayMismatch               a ledger row records another dispatch than replay asks for
"""

from __future__ import annotations


CONTENT_CHARACTERS = 4000
"""Longest model content kept on a :class:`ModelOutputInvalid` (characters)."""


class DittoError(Exception):
    """Base of every error raised by ditto_nb on purpose.

    Attributes:
        retryable: True when the same call may succeed later unchanged.
        help: a one-line hint saying what to do.
    """

    retryable: bool = False
    help: str = "See the message for details."

    def __init__(self, message: str = "", *, help: str | None = None, retryable: bool | None = None) -> None:
        super().__init__(message)
        if help is not None:
            self.help = help
        if retryable is not None:
            self.retryable = retryable

    def __str__(self) -> str:
        base = super().__str__()
        return base or self.__class__.__name__


# --- configuration and requests -------------------------------------------------------------
class ConfigError(DittoError):
    """Configuration (ditto.yaml, environment, arguments) is invalid; the message names the key."""

    help = "Fix the named key in ditto.yaml or the environment variable it references."


class InvalidRequest(DittoError):
    """A request field is missing or outside its documented range."""

    help = "Check the request fields against their documented ranges."


# --- runtime core ---------------------------------------------------------------------------
class RuntimeCoreError(DittoError):
    """Errors of the Runtime / Loop / Graph machinery."""


class GraphError(RuntimeCoreError):
    """A graph is invalid: duplicate node id, unknown dependency, cycle, capability with no
    worker, or a Graph used as a node input. Nothing of the graph ran."""

    help = "Fix the graph declaration; graphs are flat DAGs of Worker calls."


class GraphBudgetExceeded(RuntimeCoreError):
    """The plan asked for more than 128 graphs in one loop run."""

    help = "A plan must finish within 128 stage graphs; split the job."


class LoopCancelled(RuntimeCoreError):
    """The loop's Signal was aborted or timed out; running nodes were cancelled and nothing
    more was scheduled. Completed work is kept in Memory, so the job can be resumed."""

    retryable = True
    help = "Run the same request again in the same directory to resume."



# --- workers --------------------------------------------------------------------------------
class WorkerError(DittoError):
    """Errors raised by a Worker."""


class ContextUnavailable(WorkerError):
    """Redis (the working Context) is unreachable. There is no in-process fallback."""

    retryable = True
    help = "Start Redis or fix DITTO_WORKER_CONTEXT_REDIS_URL, then resume the task."


class StorageError(WorkerError):
    """The MemoryStore failed (database error, unknown schema version)."""

    help = "Check the task directory's SQLite file and disk; the task can be resumed after."


class TaskLocked(StorageError):
    """Another live process holds this task directory. One process per task directory."""

    retryable = True
    help = "Wait for the other process to finish, or use another task directory."


class ModelError(WorkerError):
    """Errors of one model call."""


class ModelTransportError(ModelError):
    """The model endpoint could not be reached or answered with an HTTP error."""

    retryable = True
    help = "Check that the model server is running and the base_url / API key are right."


class ModelServerCrashed(ModelTransportError):
    """The local llama.cpp server the kit runs has exited (or failed its start-up probe).

    The message names the exit code or signal, the log's path and its last lines. For SIGILL it
    says the llama.cpp build uses CPU instructions this machine cannot run and how to reinstall a
    portable build. Not retryable as is: the process already restarted the server once, or the
    same build would crash again.

    Attributes:
        returncode: the process's exit status (negative: killed by that signal), or None when the
            process was not a child of this one (status unknown).
        log_path: the server log file.
    """

    retryable = False
    help = "Read the server log named in the message; rerun the task in a fresh process to resume it."

    def __init__(
        self, message: str, *, returncode: int | None = None, log_path: str | None = None, help: str | None = None
    ) -> None:
        super().__init__(message, help=help, retryable=False)
        self.returncode = returncode
        self.log_path = log_path


class ModelOutputInvalid(ModelError):
    """The model's content was empty, not JSON, or did not match the expected schema.

    Attributes:
        content: the model's whole content (cut to :data:`CONTENT_CHARACTERS`), or None when
            there was none; kept in the task's failure record so the reply can be read later
            (the message quotes only an excerpt).
    """

    help = "Try a stronger model or a provider whose structured-output mode is enforced."

    def __init__(self, message: str = "", *, content: str | None = None, help: str | None = None) -> None:
        super().__init__(message, help=help)
        self.content = None if content is None else content[:CONTENT_CHARACTERS]


class ModelOutputTruncated(ModelError):
    """The model stopped at its token limit (finish_reason == "length")."""

    help = "Raise max_tokens for this provider or shorten the prompt."


class ModelRefusal(ModelError):
    """The model returned no content or an explicit refusal."""

    help = "Rephrase the request or use another model."


class ToolNotFound(WorkerError):
    """No tool is registered under the requested name."""

    help = "Register the tool with the Interaction Worker before dispatching it."


class ToolFailed(WorkerError):
    """A tool raised. ``tool`` names it; the original error is ``__cause__`` and ``cause``."""

    def __init__(self, tool: str, cause: BaseException) -> None:
        super().__init__(f"tool {tool!r} failed: {type(cause).__name__}: {cause}")
        self.tool = tool
        self.cause = cause
        self.retryable = bool(getattr(cause, "retryable", False))


# --- web ------------------------------------------------------------------------------------
class WebError(DittoError):
    """Errors of fetching, reading, storing or searching web pages."""


class InvalidURL(WebError):
    """A URL or a redirect's Location header is malformed."""


class PolicyViolation(WebError):
    """The NetworkPolicy refused a URL: scheme, origin, or the resolved address."""

    help = "Add the origin to allowed_origins (for a new task) or use another source."


class RedirectLimit(WebError):
    """More redirects than the policy's ``max_redirects`` (or a redirect loop)."""


class FetchError(WebError):
    """A page could not be fetched. ``failure`` is a short code (``http-403``, ``too-large``,
    ``timeout``, ``connect``, ``unsupported-content-type``, ...)."""

    def __init__(self, message: str, *, failure: str, retryable: bool = False) -> None:
        super().__init__(message, retryable=retryable)
        self.failure = failure


class SnapshotCorrupted(WebError):
    """A stored snapshot no longer matches its SHA-256; it is never reused or published."""

    help = "Create a new task to fetch the page again; the stored copy was altered."


class SearchProviderError(WebError):
    """A search provider failed entirely (transport, HTTP status, unparseable reply)."""

    retryable = True


# --- task level -----------------------------------------------------------------------------
class TaskError(DittoError):
    """Errors of a Web QA or deep research task."""


class RequestChanged(TaskError):
    """The task directory holds a different request (question or policy) under this id."""

    help = "Use a new task id (or a new directory) for a changed question or policy."


class PermissionRevoked(TaskError):
    """An origin the task already used is no longer allowed by the current policy."""

    help = "Restore the permission or start a new task without that origin."


class BudgetExceeded(TaskError):
    """A budget (model calls, searches, page reads, graphs) would be exceeded."""


class UngroundedAnswer(TaskError):
    """The answer's quotes or claims failed verification even after the one allowed repair.
    Nothing was published."""

    help = "Try a stronger model, more pages, or a narrower question."


class SearchFailed(TaskError):
    """Every search of the stage failed (as opposed to succeeding with no hits)."""

    retryable = True


class ReadFailed(TaskError):
    """Every page read of the stage failed."""

    retryable = True


class PublishFailed(TaskError):
    """The report could not be written, or a different report is already published."""


class ReplayMismatch(TaskError):
    """On replay, the ledger row under a dispatch key records a different kind or name (purpose,
    query or URL) than the plan now asks for: the task's history and the code disagree. Nothing
    is re-dispatched silently (DBOS checks a step's recorded name the same way)."""

    help = "Start a new task (new id or directory); this one was written by different code or data."


__all__ = [name for name, value in globals().items() if isinstance(value, type) and issubclass(value, DittoError)]
