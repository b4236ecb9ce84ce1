"""Importers: question-answering data sets → sandbox pages and question lists.

- HotpotQA (Yang et al., 2018, https://hotpotqa.github.io/): records ``{_id, question, answer,
  type, level, supporting_facts: [[title, sent_idx], ...], context: [[title, [sentences]], ...]}``
  as JSONL (one record a line) or as the original JSON array. Each distinct context title
  becomes one page on the wiki host (``https://wiki.test/wiki/Title``), its sentences joined
  with single spaces into one paragraph.
- SQuAD (Rajpurkar et al., 2016, https://rajpurkar.github.io/SQuAD-explorer/): ``{"data":
  [{"title", "paragraphs": [{"context", "qas"}]}]}`` → one page per article, one paragraph per
  context.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ditto_nb.errors import ConfigError
from ditto_nb.sandbox.corpus import DEFAULT_WIKI_HOST, SandboxPage, wiki_url


class _HotpotRecord(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    id: str
    question: str
    answer: str = ""
    supporting_facts: list[tuple[str, int]] = []
    context: list[tuple[str, list[str]]] = []

    @classmethod
    def parse(cls, raw: Any, where: str) -> _HotpotRecord:
        if not isinstance(raw, dict):
            raise ConfigError(f"{where}: a HotpotQA record must be a JSON object")
        data = dict(raw)
        data.setdefault("id", data.pop("_id", None))
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(f"{where}: invalid HotpotQA record: {exc}") from exc


@dataclass(frozen=True)
class HotpotQuestion:
    """One HotpotQA question.

    Attributes:
        id: the record's ``_id``.
        question: the question text.
        answer: the gold answer text.
        supporting_titles: titles named by ``supporting_facts``, first-seen order, no repeats.
    """

    id: str
    question: str
    answer: str
    supporting_titles: tuple[str, ...]


def _iter_hotpot(path: str | Path) -> Iterator[_HotpotRecord]:
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read HotpotQA file {file}: {exc}") from exc
    if text.lstrip().startswith("["):
        try:
            records = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{file}: not valid JSON: {exc}") from exc
        for number, raw in enumerate(records):
            yield _HotpotRecord.parse(raw, f"{file}[{number}]")
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{file}:{number}: not valid JSON: {exc}") from exc
        yield _HotpotRecord.parse(raw, f"{file}:{number}")


def import_hotpotqa(path: str | Path, wiki_host: str = DEFAULT_WIKI_HOST) -> list[SandboxPage]:
    """Turn HotpotQA context paragraphs into wiki pages.

    Args:
        path: HotpotQA JSONL (or JSON array) file.
        wiki_host: host of the generated pages.

    Returns:
        One page per distinct context title (first occurrence wins), in first-seen order:
        URL ``https://<wiki_host>/wiki/<Title_with_underscores>``, one paragraph holding the
        title's sentences (stripped) joined with single spaces.

    Raises:
        ConfigError: unreadable file or invalid record (the message names the line).
    """
    pages: dict[str, SandboxPage] = {}
    for record in _iter_hotpot(path):
        for title, sentences in record.context:
            if title in pages:
                continue
            paragraph = " ".join(sentence.strip() for sentence in sentences if sentence.strip())
            if paragraph:
                pages[title] = SandboxPage(url=wiki_url(title, wiki_host), title=title, paragraphs=[paragraph])
    return list(pages.values())


def load_hotpotqa_questions(path: str | Path) -> list[HotpotQuestion]:
    """Load the questions of a HotpotQA file (``context`` is optional here).

    Args:
        path: HotpotQA JSONL (or JSON array) file.

    Returns:
        The questions in file order.

    Raises:
        ConfigError: unreadable file or invalid record.
    """
    questions: list[HotpotQuestion] = []
    for record in _iter_hotpot(path):
        titles = tuple(dict.fromkeys(title for title, _ in record.supporting_facts))
        questions.append(HotpotQuestion(record.id, record.question, record.answer, titles))
    return questions


def import_squad(path: str | Path, wiki_host: str = DEFAULT_WIKI_HOST) -> list[SandboxPage]:
    """Turn a SQuAD JSON file into wiki pages.

    Args:
        path: SQuAD v1.1/v2.0 JSON (``{"data": [{"title", "paragraphs": [{"context"}]}]}``).
        wiki_host: host of the generated pages.

    Returns:
        One page per article (underscores in the title become spaces), one paragraph per
        non-empty context, in file order; a repeated title is merged into the first.

    Raises:
        ConfigError: unreadable or not in the SQuAD layout.
    """
    file = Path(path)
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read SQuAD file {file}: {exc}") from exc
    articles = document.get("data") if isinstance(document, dict) else None
    if not isinstance(articles, list):
        raise ConfigError(f"{file}: not a SQuAD file (no top-level 'data' list)")
    merged: dict[str, list[str]] = {}
    for number, article in enumerate(articles):
        if not isinstance(article, dict) or not isinstance(article.get("title"), str):
            raise ConfigError(f"{file}: data[{number}] has no 'title'")
        title = article["title"].replace("_", " ").strip()
        paragraphs = merged.setdefault(title, [])
        for paragraph in article.get("paragraphs") or []:
            context = paragraph.get("context") if isinstance(paragraph, dict) else None
            if isinstance(context, str) and context.strip():
                paragraphs.append(context.strip())
    return [
        SandboxPage(url=wiki_url(title, wiki_host), title=title, paragraphs=paragraphs)
        for title, paragraphs in merged.items()
        if paragraphs
    ]


__all__ = ["HotpotQuestion", "import_hotpotqa", "import_squad", "load_hotpotqa_questions"]
