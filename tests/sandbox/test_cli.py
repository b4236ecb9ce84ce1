"""``ditto-nb sandbox build`` / ``serve`` through the real typer app (serve in a subprocess)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import typer
from typer.testing import CliRunner

from ditto_nb.cli.sandbox import register
from ditto_nb.sandbox import demo_corpus_path, load_corpus
from ditto_nb.web.fetch import fetch
from ditto_nb.web.policy import NetworkPolicy

ROOT = Path(__file__).resolve().parents[2]


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """Test root."""

    register(app)
    return app


def test_help_and_build_from_each_source(tmp_path: Path) -> None:
    runner = CliRunner()
    app = _app()
    result = runner.invoke(app, ["sandbox", "--help"])
    assert result.exit_code == 0 and "build" in result.output and "serve" in result.output
    hotpot = tmp_path / "h.jsonl"
    hotpot.write_text(json.dumps({"_id": "1", "question": "q", "answer": "a", "supporting_facts": [],
                                  "context": [["Alpha", ["One.", "Two."]], ["Beta", ["Three."]]]}) + "\n")
    squad = tmp_path / "s.json"
    squad.write_text(json.dumps({"data": [{"title": "Gamma", "paragraphs": [{"context": "Four.", "qas": []}]}]}))
    for option, source, titles in (("--hotpotqa", hotpot, ["Alpha", "Beta"]), ("--squad", squad, ["Gamma"])):
        out = tmp_path / f"{option.strip('-')}.jsonl"
        result = runner.invoke(app, ["sandbox", "build", option, str(source), "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert [page.title for page in load_corpus(out)] == titles
    out = tmp_path / "pages.jsonl"
    result = runner.invoke(app, ["sandbox", "build", "--pages", str(demo_corpus_path()), "-o", str(out)])
    assert result.exit_code == 0 and load_corpus(out) == load_corpus(demo_corpus_path())
    result = runner.invoke(app, ["sandbox", "build", "--hotpotqa", str(hotpot), "--squad", str(squad), "-o", str(out)])
    assert result.exit_code != 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"url": "https://example.com/", "title": "x", "html": "x"}\n')
    result = runner.invoke(app, ["sandbox", "build", "--pages", str(bad), "-o", str(out)])
    assert result.exit_code == 2 and "bad.jsonl:1" in result.output


async def test_serve_prints_addresses_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", "from ditto_nb.cli.sandbox import sandbox_app; sandbox_app()", "serve", str(demo_corpus_path()),
         "--workdir", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    try:
        lines: list[str] = []
        deadline = time.monotonic() + 30
        assert process.stdout is not None
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line.strip())
            if line.startswith("pages:"):
                break
        info = dict(line.split(": ", 1) for line in lines if ": " in line)
        assert "port" in info, lines
        port, ca = int(info["port"]), info["ca"]
        assert Path(ca).is_file()
        assert f"https://atlas.test:{port}" in lines and f"https://mirror.test:{port}" in lines
        policy = NetworkPolicy(
            allowed_origins=(f"https://wiki.test:{port}",), ca_bundle=ca, resolve_overrides={"wiki.test": "127.0.0.1"}
        )
        raw = await fetch(f"https://wiki.test:{port}/wiki/Seine", policy)
        assert raw.status == 200 and b"777 kilometres" in raw.body
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
