"""``task.json``, one layout for both patterns (issue 28).

Directories written by the previous code (the two version-1 layouts, written literally here next
to Memory files made by the old code in ``tests/patterns/legacy/tasks``, or by the unchanged
``bind_task``) are opened and resumed through the new code, and their file is migrated on open.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import ConfigError, RequestChanged
from ditto_nb.patterns.common.task import bind_task
from ditto_nb.patterns.common.task_file import (
    ModelChoice,
    SandboxChoice,
    TaskFile,
    read_task_file,
    require_task_file,
    update_task_file,
    write_task_file,
)
from ditto_nb.patterns.deep_research import ResearchRequest, resume_research
from ditto_nb.patterns.tasks import create_task, read_task, resume_task
from ditto_nb.patterns.web_qa import WebQaRequest
from ditto_nb.workers.task_memory import has_task_memory
from tests.patterns.legacy.offline import offline_search

LEGACY = Path(__file__).parents[1] / "legacy" / "tasks"
WEB_QA_REQUEST: dict[str, Any] = json.loads((LEGACY / "web_qa.request.json").read_text(encoding="utf-8"))
RESEARCH_REQUEST: dict[str, Any] = json.loads((LEGACY / "research" / "task.json").read_text(encoding="utf-8"))["request"]
SCRIPTED = {"provider": "scripted", "model": "scripted"}


def _write(directory: Path, data: Any) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "task.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _on_disk(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / "task.json").read_text(encoding="utf-8"))
    return data


# --- directories written by the previous code ----------------------------------------------------
async def test_old_web_qa_cli_directory_resumes_and_is_migrated(
    tmp_path: Path, scripted_model: Any, scripted_config: Any
) -> None:
    directory = tmp_path / "web_qa"
    shutil.copytree(LEGACY / "web_qa", directory)  # Memory made by the old code
    sandbox = {"corpus": "/data/corpus.jsonl", "port": 46133, "wiki_host": "wiki.test"}
    _write(directory, {"pattern": "web_qa", "cli": {"request": WEB_QA_REQUEST, **SCRIPTED,
                                                     "config": "/etc/ditto.yaml", "sandbox": sandbox}})
    before = json.loads((directory / "output" / "report.json").read_text(encoding="utf-8"))

    report = await resume_task(directory, scripted_config(), offline_search(WEB_QA_REQUEST["allowed_origins"]))

    assert len(scripted_model.requests) == 0
    assert report.model_dump(mode="json")["answer"]["claims"] == before["answer"]["claims"]
    assert _on_disk(directory) == {"version": 2, "pattern": "web_qa", "request": WEB_QA_REQUEST, "model": SCRIPTED,
                                   "config": "/etc/ditto.yaml", "sandbox": sandbox}
    assert sorted(p.name for p in directory.iterdir() if p.name.startswith((".task", "task"))) == ["task.json"]


async def test_old_research_directory_resumes_and_is_migrated(
    tmp_path: Path, scripted_model: Any, scripted_config: Any
) -> None:
    directory = tmp_path / "research"
    shutil.copytree(LEGACY / "research", directory)  # Memory made by the old code
    sandbox = {"corpus": "/data/bridge.jsonl", "port": 41805}
    _write(directory, {"pattern": "deep_research", "request": RESEARCH_REQUEST, "model": SCRIPTED, "sandbox": sandbox})
    before = json.loads((directory / "output" / "report.json").read_text(encoding="utf-8"))

    report = await resume_research(directory, scripted_config(), offline_search(RESEARCH_REQUEST["allowed_origins"]))

    assert len(scripted_model.requests) == 0
    after = report.model_dump(mode="json") if hasattr(report, "model_dump") else report
    assert after["status"] == before["status"] and after["stop_reason"] == before["stop_reason"]
    assert _on_disk(directory) == {"version": 2, "pattern": "deep_research", "request": RESEARCH_REQUEST,
                                   "model": SCRIPTED, "config": None, "sandbox": {**sandbox, "wiki_host": "wiki.test"}}


def test_old_research_marker_without_model_is_read_as_its_request(tmp_path: Path) -> None:
    shutil.copytree(LEGACY / "research", tmp_path / "research")  # its task.json is the old marker as written
    request = read_task(tmp_path / "research")
    assert isinstance(request, ResearchRequest) and request.id == "legacy-research"
    assert _on_disk(tmp_path / "research") == {"version": 2, "pattern": "deep_research", "request": RESEARCH_REQUEST,
                                               "model": None, "config": None, "sandbox": None}


def test_cli_section_without_pattern_is_a_web_qa_task(tmp_path: Path) -> None:
    _write(tmp_path, {"cli": {"request": WEB_QA_REQUEST, **SCRIPTED}})
    task = read_task_file(tmp_path)
    assert task == TaskFile(pattern="web_qa", request=WEB_QA_REQUEST, model=ModelChoice(**SCRIPTED))
    assert _on_disk(tmp_path)["version"] == 2


async def test_directory_bound_by_the_old_ask_reopens_and_refuses_another_request(tmp_path: Path) -> None:
    request = WebQaRequest.parse(WEB_QA_REQUEST)
    directory = tmp_path / "ask"
    await bind_task(directory, request)  # what the old web_qa create_task did, then the CLI wrote:
    _write(directory, {"pattern": "web_qa", "cli": {"request": WEB_QA_REQUEST, **SCRIPTED, "config": None,
                                                     "sandbox": None}})
    search = offline_search(WEB_QA_REQUEST["allowed_origins"])

    assert await create_task(directory, request, search) == request
    task = require_task_file(directory)
    assert task.model == ModelChoice(**SCRIPTED) and task.pattern == "web_qa"  # kept across create_task
    with pytest.raises(RequestChanged):
        await create_task(directory, request.model_copy(update={"question": "Another question?"}), search)
    assert _on_disk(directory)["request"] == WEB_QA_REQUEST


# --- create_task and RequestChanged, both patterns --------------------------------------------------
@pytest.mark.parametrize("pattern", ["web_qa", "deep_research"])
async def test_task_file_alone_refuses_a_different_request(tmp_path: Path, pattern: str) -> None:
    cls, data = (WebQaRequest, WEB_QA_REQUEST) if pattern == "web_qa" else (ResearchRequest, RESEARCH_REQUEST)
    request = cls.parse(data)
    search = offline_search(data["allowed_origins"])
    directory = tmp_path / "t"
    assert await create_task(directory, request, search) == request
    assert _on_disk(directory) == {"version": 2, "pattern": pattern, "request": data, "model": None, "config": None,
                                   "sandbox": None}

    other = tmp_path / "other"
    _write(other, {"version": 2, "pattern": pattern, "request": {**data, "question": "Another question?"}})
    with pytest.raises(RequestChanged, match="different"):
        await create_task(other, request, search)
    assert not has_task_memory(other), "a refused request bound the Memory"


async def test_a_directory_of_the_other_pattern_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, {"pattern": "deep_research", "request": RESEARCH_REQUEST})
    with pytest.raises(RequestChanged, match="deep_research task"):
        await create_task(tmp_path, WebQaRequest.parse(WEB_QA_REQUEST),
                          offline_search(WEB_QA_REQUEST["allowed_origins"]))


# --- damaged files ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{this is not json", "cannot read it as JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"pattern": "web_qa", "cli": "nope"}', "'cli' section is not a JSON object"),
        ('{"pattern": "chat", "request": {}}', "pattern"),
        ('{"pattern": "deep_research"}', "request"),
        ('{"pattern": "web_qa", "cli": {"request": {}, "provider": "p", "model": "m", "colour": 1}}', "colour"),
        ('{"version": 2, "pattern": "web_qa", "request": {}, "extra": 1}', "extra"),
    ],
)
def test_a_damaged_task_file_is_a_config_error(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "task.json").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message) as caught:
        read_task_file(tmp_path)
    assert "is damaged" in str(caught.value) and "Repair or remove" in caught.value.help
    assert (tmp_path / "task.json").read_text(encoding="utf-8") == text  # left for the analyst to repair


def test_a_newer_layout_is_refused_with_help(tmp_path: Path) -> None:
    _write(tmp_path, {"version": 3, "pattern": "web_qa", "request": {}})
    with pytest.raises(ConfigError, match="version 3") as caught:
        read_task_file(tmp_path)
    assert "upgrade" in caught.value.help


async def test_create_task_on_a_damaged_file_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "task.json").write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError):
        await create_task(tmp_path, ResearchRequest.parse(RESEARCH_REQUEST))


# --- reading, writing, updating ---------------------------------------------------------------------
def test_missing_file_is_none_and_required_file_says_what_to_do(tmp_path: Path) -> None:
    assert read_task_file(tmp_path) is None
    with pytest.raises(ConfigError, match="no task.json") as caught:
        require_task_file(tmp_path)
    assert "ditto-nb ask" in caught.value.help
    with pytest.raises(ConfigError, match="does not exist"):
        require_task_file(tmp_path / "missing")


def test_update_replaces_only_the_given_fields(tmp_path: Path) -> None:
    write_task_file(tmp_path, TaskFile(pattern="web_qa", request=WEB_QA_REQUEST, config="/a.yaml",
                                       sandbox=SandboxChoice(corpus="/c.jsonl", port=1)))
    updated = update_task_file(tmp_path, model=ModelChoice(**SCRIPTED))
    assert updated == read_task_file(tmp_path)
    assert (updated.model, updated.config, updated.sandbox) == (ModelChoice(**SCRIPTED), "/a.yaml",
                                                                SandboxChoice(corpus="/c.jsonl", port=1))
    cleared = update_task_file(tmp_path, sandbox=None, config=None)
    assert (cleared.model, cleared.config, cleared.sandbox) == (ModelChoice(**SCRIPTED), None, None)
    assert [p.name for p in tmp_path.iterdir()] == ["task.json"]  # the temporary file was renamed
