"""Command line for the local MediaWiki (:mod:`ditto_nb.sandbox.mediawiki`); see ``scripts/mediawiki.sh``.

::

    python -m ditto_nb.sandbox.mediawiki_cli start  --folder DIR --hotpotqa FILE [--questions N] [--hotpotqa FILE2 ...]
    python -m ditto_nb.sandbox.mediawiki_cli status --folder DIR
    python -m ditto_nb.sandbox.mediawiki_cli stop   --folder DIR

``start`` installs MediaWiki into DIR when needed, imports the context paragraphs of the first
N records of each HotpotQA file (all records when N is omitted; titles already imported are
skipped), starts the servers in the background and prints the API URL, the CA bundle and the
``.test`` override to use. ``stop`` stops them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ditto_nb.errors import DittoError
from ditto_nb.sandbox.corpus import SandboxPage
from ditto_nb.sandbox.importers import import_hotpotqa
from ditto_nb.sandbox.mediawiki import MediaWikiSite


def hotpotqa_pages(path: Path, questions: int | None, scratch: Path) -> list[SandboxPage]:
    """The context paragraphs of the first ``questions`` records of a HotpotQA JSONL file as pages.

    Args:
        path: HotpotQA JSONL (one record a line) or JSON array file.
        questions: records to take (None = all).
        scratch: folder for the sliced copy of the file.

    Returns:
        One page per distinct title (see :func:`ditto_nb.sandbox.import_hotpotqa`).

    Raises:
        ConfigError: unreadable file or invalid record.
    """
    if questions is None:
        return import_hotpotqa(path)
    records = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if records and records[0].lstrip().startswith("["):
        records = [json.dumps(record) for record in json.loads("\n".join(records))]
    scratch.mkdir(parents=True, exist_ok=True)
    sliced = scratch / f"{path.stem}-first-{questions}.jsonl"
    sliced.write_text("\n".join(records[:questions]) + "\n", encoding="utf-8")
    return import_hotpotqa(sliced)


def describe(site: MediaWikiSite) -> dict[str, object]:
    """What a client needs to reach a running site."""
    return {"api_url": site.api_url, "origin": site.origin, "ca_bundle": str(site.ca_path),
            "resolve_overrides": site.resolve_overrides, "pages": len(site.imported_titles()),
            "folder": str(site.folder), "access_log": str(site.access_log)}


def start(folder: Path, sources: list[Path], questions: int | None) -> MediaWikiSite:
    """Install (if needed), import ``sources`` and start the wiki in ``folder``; print progress.

    Returns:
        The running site (already running → attached, after importing any new pages).
    """
    site = MediaWikiSite(folder)
    started = time.perf_counter()
    if not site.installed:
        print(f"installing MediaWiki into {site.folder} ...", file=sys.stderr, flush=True)
        site.install()
    for source in sources:
        pages = hotpotqa_pages(source, questions, site.folder / "import")
        print(f"importing {len(pages)} pages from {source} ...", file=sys.stderr, flush=True)
        added = site.import_pages(pages)
        print(f"  {added} new pages ({len(site.imported_titles())} in the wiki)", file=sys.stderr, flush=True)
    running = MediaWikiSite.attach(folder)
    if running is not None:
        return running
    site.start()
    print(f"wiki ready in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return site


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (errors are printed, never a traceback)."""
    parser = argparse.ArgumentParser(description="A local MediaWiki (Debian package) over HTTPS on 127.0.0.1")
    parser.add_argument("command", choices=("start", "status", "stop"))
    parser.add_argument("--folder", type=Path, required=True, help="output folder (everything is written here)")
    parser.add_argument("--hotpotqa", type=Path, action="append", default=[], help="HotpotQA JSONL to import (repeatable)")
    parser.add_argument("--questions", type=int, default=None, help="import only the first N records of each file")
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            print(json.dumps(describe(start(args.folder, args.hotpotqa, args.questions)), indent=2))
        elif args.command == "status":
            site = MediaWikiSite.attach(args.folder)
            print(json.dumps(describe(site), indent=2) if site else f"no wiki running from {args.folder}")
            return 0 if site else 1
        else:
            MediaWikiSite(args.folder).stop()
            print(f"stopped the wiki of {args.folder}")
    except DittoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
