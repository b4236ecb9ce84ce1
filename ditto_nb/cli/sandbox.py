"""CLI sub-commands: ``ditto-nb sandbox build`` and ``ditto-nb sandbox serve``."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Annotated, NoReturn, Optional

import typer

from ditto_nb.errors import ConfigError

sandbox_app = typer.Typer(help="The offline sandbox web: build a corpus, serve it over HTTPS on 127.0.0.1.", no_args_is_help=True)


@sandbox_app.command("build")
def build(
    output: Annotated[Path, typer.Option("-o", "--output", help="Corpus JSONL file to write.")],
    hotpotqa: Annotated[Optional[Path], typer.Option("--hotpotqa", help="HotpotQA JSONL/JSON file.")] = None,  # noqa: UP007
    squad: Annotated[Optional[Path], typer.Option("--squad", help="SQuAD JSON file.")] = None,  # noqa: UP007
    pages: Annotated[Optional[Path], typer.Option("--pages", help="Sandbox pages JSONL to validate and copy.")] = None,  # noqa: UP007
    wiki_host: Annotated[str, typer.Option("--wiki-host", help="Host of imported wiki pages.")] = "wiki.test",
) -> None:
    """Build a sandbox corpus from exactly one of --hotpotqa, --squad or --pages."""
    from ditto_nb.sandbox import import_hotpotqa, import_squad, load_corpus, write_corpus

    sources = [source for source in (hotpotqa, squad, pages) if source is not None]
    if len(sources) != 1:
        raise typer.BadParameter("give exactly one of --hotpotqa, --squad, --pages")
    try:
        if hotpotqa is not None:
            corpus = import_hotpotqa(hotpotqa, wiki_host)
        elif squad is not None:
            corpus = import_squad(squad, wiki_host)
        else:
            corpus = load_corpus(sources[0])
    except ConfigError as exc:
        _fail(str(exc))
    if not corpus:
        _fail("the input holds no pages; a sandbox corpus needs at least one")
    try:
        count = write_corpus(corpus, output)
    except OSError as exc:
        _fail(f"cannot write {output}: {exc.strerror or exc}")
    typer.echo(f"wrote {count} pages to {output}")


@sandbox_app.command("serve")
def serve(
    corpus: Annotated[Path, typer.Argument(help="Corpus JSONL file.")],
    port: Annotated[int, typer.Option("--port", help="Port on 127.0.0.1 (0: any free port).")] = 0,
    workdir: Annotated[Optional[Path], typer.Option("--workdir", help="Where the CA and index are written.")] = None,  # noqa: UP007
    wiki_host: Annotated[str, typer.Option("--wiki-host", help="Host of the wiki routes and search API.")] = "wiki.test",
) -> None:
    """Serve a corpus over HTTPS on 127.0.0.1 until Ctrl-C; print port, CA path and origins."""
    from ditto_nb.sandbox import SandboxWeb, load_corpus

    try:
        pages = load_corpus(corpus)
    except ConfigError as exc:
        _fail(str(exc))
    if not 0 <= port <= 65535:
        _fail(f"--port must be 0-65535, not {port}")
    web = SandboxWeb(pages, workdir, wiki_host, port=port)
    try:
        web.start()
    except OSError as exc:
        _fail(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}")
    try:
        typer.echo(f"port: {web.port}")
        typer.echo(f"ca: {web.ca_path}")
        typer.echo(f"api: {web.api_url}")
        typer.echo("origins:")
        for origin in web.allowed_origins:
            typer.echo(f"  {origin}")
        typer.echo(f"pages: {len(pages)}; resolve every host to 127.0.0.1. Ctrl-C to stop.")
        # Ctrl-C must stop it even when started with SIGINT ignored (a background job of a
        # non-interactive shell): Python installs no KeyboardInterrupt handler then
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            while True:
                time.sleep(0.5)
        except KeyboardInterrupt:
            typer.echo("stopping")
    finally:
        web.close()


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def register(app: typer.Typer) -> None:
    """Add the ``sandbox`` sub-app to ``app``."""
    app.add_typer(sandbox_app, name="sandbox")


__all__ = ["register", "sandbox_app"]
