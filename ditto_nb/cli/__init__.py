"""The ``ditto-nb`` command line: thin, it calls the same public API a notebook calls.

Sub-commands live in one module each (``sandbox``, ``qa``, ``research``, ``batch``) and register
themselves on :data:`app` through :func:`_register`.
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(help="ditto_nb: grounded web QA and bounded deep research.", no_args_is_help=True)

_SUBMODULES = ("sandbox", "qa", "research", "batch")


def _register() -> None:
    for name in _SUBMODULES:
        module = importlib.import_module(f"ditto_nb.cli.{name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)


def main() -> None:
    """Entry point of the ``ditto-nb`` console script."""
    _register()
    app()
