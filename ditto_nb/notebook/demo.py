"""The offline notebook environment: sandbox web over the packaged demo corpus, Redis, SQLite,
and a model chosen by env ``DITTO_NOTEBOOK_PROVIDER``.

- ``local`` (default) / ``local-small``: the embedded llama.cpp model (``ditto_nb.local_model``),
  started by :func:`ditto_nb.patterns.common.open_task_app` on first use.
- ``scripted``: :class:`ditto_nb.testing.ScriptedModel` answering with :class:`DemoResponder`, a
  rule-based stand-in for quick runs only (it reads the evidence lines of each prompt: a two-hop
  question's bridge place and short answer by :mod:`ditto_nb.notebook.stand_in`'s rules, else the
  best-overlapping paragraphs; it is not a language model).

Context uses ``DITTO_WORKER_CONTEXT_REDIS_URL`` when set, else the embedded Redis.
"""

from __future__ import annotations

from ditto_nb.patterns.web_qa.prompts import evidence_lines, purpose_of
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ditto_nb.evidence import bm25_rank
from ditto_nb.notebook.stand_in import Chunk, bridge_lookup, selected_chunks, typed_answer
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.runtime.config import RuntimeConfig, load_runtime_config
from ditto_nb.runtime.model_choice import resolve_model
from ditto_nb.sandbox import SandboxPage, SandboxWeb, demo_corpus_path, load_corpus
from ditto_nb.testing import ScriptedModel, scripted_runtime_config
from ditto_nb.testing.scripted_coverage import coverage_reply

PROVIDER_ENV = "DITTO_NOTEBOOK_PROVIDER"
"""Environment variable choosing the notebooks' model provider (default ``local``)."""

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an of and or in on to for is are was were by with what who how when which did does do that this it its "
    "into where from as at be city river".split()
)
_RESEARCH_CHUNK = re.compile(r"^\[(E\d+)\] \((\S+)\) (.*)$", re.M)
_ASKED = re.compile(r"^(?:Question|Topic):", re.M)
_SENTENCE = re.compile(r"^(.+?[.!?])(?:\s|$)")


def _first_sentence(text: str) -> str:
    match = _SENTENCE.match(text)
    return match.group(1) if match else text


@dataclass
class DemoResponder:
    """Rule-based replies for the scripted model, per ``Task: <purpose>`` (quick runs only).

    Attributes:
        purposes: the purposes seen, in order.
        sub_questions: the research sub-questions it planned (used when assessing).
    """

    purposes: list[str] = field(default_factory=list)
    sub_questions: list[str] = field(default_factory=list)
    question: str = ""
    assessments: int = 0

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answer one chat request (the ScriptedModel ``responder``)."""
        messages = request["messages"]
        purpose = purpose_of(messages)
        self.purposes.append(purpose)
        user = str(messages[-1]["content"])
        web = [(line.label, line.host, line.text) for line in evidence_lines(user)]
        research = _RESEARCH_CHUNK.findall(user)
        if _ASKED.search(user):  # read the question from each prompt: no state is needed across a restart
            self.question = self._question(user)
        if purpose == "plan":
            self.question = self._question(user)
            return {"normalized_question": self.question, "queries": [self._query(self.question)],
                    "needs_clarification": False, "clarification": ""}
        if purpose == "research-plan":
            self.question = self._question(user)
            self.sub_questions = [self.question]
            return {"clear": True, "goal": f"Find out: {self.question}", "sub_questions": self.sub_questions,
                    "queries": [self._query(self.question)], "clarification_questions": []}
        if purpose == "select":
            chosen = selected_chunks(self.question, [Chunk(*line) for line in evidence_lines(user)])
            return {"selected": [c.label for c in chosen], "lookup": bridge_lookup(self.question, chosen),
                    "missing": [], "conflicts": []}
        if purpose in ("answer", "repair") and web:
            shown = [Chunk(*line) for line in evidence_lines(user)]
            bridges = bridge_lookup(self.question, selected_chunks(self.question, shown))
            typed = typed_answer(self.question, shown, bridges)
            if typed is not None:  # a two-hop question's short answer, with the sentences that carry it
                return {"status": "answered", "answer": typed.answer,
                        "claims": [{"claim": sentence, "chunk_id": label, "quote": sentence}
                                   for label, sentence in typed.claims]}
            best = self._best(web, 2)
            claims = [{"claim": _first_sentence(text), "chunk_id": label, "quote": _first_sentence(text)}
                      for label, _origin, text in best]
            return {"status": "answered" if claims else "insufficient-evidence",
                    "answer": " ".join(c["claim"] for c in claims) or "No evidence.", "claims": claims}
        if purpose in ("ground", "regrade"):
            n = len(re.findall(r"^\d+\. Claim:", user, re.M))
            return {"verdicts": [{"n": i, "supported": True, "reason": "the quote states it"} for i in range(1, n + 1)]}
        if purpose == "assess":
            # The first assessment asks for one more round (a follow-up query on the best
            # paragraph's words); later ones mark the sub-questions covered by the best evidence.
            self.assessments += 1
            best = self._best(research, 2)
            first = self.assessments == 1 and bool(best)
            follow = self._query(best[0][2])[:60] if first else ""
            items = [{"index": i, "status": "gap" if first or not best else "covered",
                      "evidence_ids": [] if first else [b[0] for b in best],
                      "gap": "needs a second source" if first else ("" if best else "no matching evidence"),
                      "next_queries": [follow] if follow else []}
                     for i, _q in enumerate(self.sub_questions or [self.question], 1)]
            return {"items": items}
        if purpose in ("report", "repair"):
            best = self._best(research, 2)
            return {"summary": "What the evidence read so far shows.", "unknowns": [],
                    "conclusions": [{"index": 1, "statement": _first_sentence(text), "chunk_id": eid,
                                     "quote": _first_sentence(text)} for eid, _origin, text in best]}
        if purpose == "review":
            return {"ok": True, "problems": []}
        if purpose == "coverage":
            return coverage_reply(user)
        if purpose == "compare":  # the stand-in does not compare: the comparison declines, naming no value
            return {"first": "", "second": "", "answer": "", "status": "insufficient-evidence"}
        return {}

    def _question(self, user: str) -> str:
        for line in user.splitlines():
            for prefix in ("Question:", "Topic:"):
                if line.strip().startswith(prefix):
                    return line.strip().removeprefix(prefix).strip()
        return user.strip().splitlines()[0] if user.strip() else ""

    @staticmethod
    def _query(question: str) -> str:
        return " ".join(w for w in _WORD.findall(question.lower()) if w not in _STOP)[:200] or question

    def _best(self, chunks: list[tuple[str, str, str]], limit: int) -> list[tuple[str, str, str]]:
        """Chunks matching the question, best BM25 score first (:func:`ditto_nb.evidence.bm25_rank`),
        at most one per origin."""
        picked: list[tuple[str, str, str]] = []
        origins: set[str] = set()
        for ranked in bm25_rank(self.question, [c[2] for c in chunks]):
            chunk = chunks[ranked.index]
            if ranked.score > 0 and chunk[1] not in origins:
                picked.append(chunk)
                origins.add(chunk[1])
        return picked[:limit]


@dataclass
class NotebookEnv:
    """What a notebook needs to run a task offline.

    Attributes:
        provider: ``local``, ``local-small`` or ``scripted``.
        config: the runtime configuration (its default model is the chosen provider).
        web: the started sandbox web serving the demo corpus.
        search: the pattern's ``search`` argument for the sandbox.
        model: ``{"provider", "model"}`` for the pattern input.
        scripted: the scripted model server (``scripted`` only), else None.
        responder: the :class:`DemoResponder` (``scripted`` only), else None.
    """

    provider: str
    config: RuntimeConfig
    web: SandboxWeb
    search: SearchSetup
    model: dict[str, str]
    scripted: ScriptedModel | None = None
    responder: DemoResponder | None = None

    def model_calls(self) -> int:
        """Requests the scripted model received so far (0 for real providers: count via the app)."""
        return len(self.scripted.requests) if self.scripted is not None else 0

    def close(self) -> None:
        """Stop the sandbox web and the scripted model (a local model server is left to
        ``ditto_nb.local_model.stop_all``)."""
        try:
            self.web.close()
        finally:
            if self.scripted is not None:
                self.scripted.stop()


def open_notebook_env(
    provider: str | None = None, env: Mapping[str, str] | None = None, pages: list[SandboxPage] | None = None,
    port: int = 0,
) -> NotebookEnv:
    """Start the sandbox web over the packaged demo corpus and choose the model provider.

    Args:
        provider: ``local``, ``local-small`` or ``scripted``; None → env ``DITTO_NOTEBOOK_PROVIDER``
            (default ``local``). Another name must be a provider of the loaded ``ditto.yaml``.
        env: environment (default ``os.environ``): Redis URL, provider choice.
        pages: the sandbox corpus (default: the packaged demo corpus).
        port: the sandbox web's port on 127.0.0.1 (0 picks a free one; a resumed task whose
            origins name a port needs the same one again).

    Returns:
        The :class:`NotebookEnv` (call ``close()`` at the end).

    Raises:
        ConfigError: unknown provider or invalid configuration.
    """
    from ditto_nb.errors import ConfigError

    environment = os.environ if env is None else env
    name = provider or environment.get(PROVIDER_ENV) or "local"
    config = load_runtime_config(environment)
    web = SandboxWeb(pages if pages is not None else load_corpus(demo_corpus_path()), port=port).start()
    try:
        search = SearchSetup.from_sandbox(web)
        if name == "scripted":
            responder = DemoResponder()
            scripted = ScriptedModel()
            scripted.start()
            scripted.responder = responder
            cfg = scripted_runtime_config(scripted, redis_url=config.context.redis_url)
            return NotebookEnv(name, cfg, web, search, {"provider": "scripted", "model": scripted.model_name},
                               scripted, responder)
        if name not in config.providers:
            raise ConfigError(f"unknown notebook provider {name!r}; use scripted or one of {sorted(config.providers)}")
        resolved = resolve_model(config, name)
        return NotebookEnv(name, resolved.config, web, search, resolved.selection())
    except BaseException:
        web.close()
        raise


__all__ = ["PROVIDER_ENV", "DemoResponder", "NotebookEnv", "open_notebook_env"]
