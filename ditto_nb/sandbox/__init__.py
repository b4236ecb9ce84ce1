"""The offline sandbox web: corpus pages served over HTTPS on 127.0.0.1 with a local CA, a
MediaWiki-compatible BM25 search API, corpus importers (HotpotQA, SQuAD) and an in-process
``local`` search provider. See docs/ARCHITECTURE.md §Sandbox.
"""

from ditto_nb.sandbox.corpus import (
    DEFAULT_WIKI_HOST,
    SandboxPage,
    demo_corpus_path,
    demo_questions_path,
    load_corpus,
    wiki_url,
    write_corpus,
)
from ditto_nb.sandbox.importers import HotpotQuestion, import_hotpotqa, import_squad, load_hotpotqa_questions
from ditto_nb.sandbox.index import SearchIndex
from ditto_nb.sandbox.provider import LocalIndexProvider
from ditto_nb.sandbox.server import API_PATH, SandboxWeb

__all__ = [
    "API_PATH",
    "DEFAULT_WIKI_HOST",
    "HotpotQuestion",
    "LocalIndexProvider",
    "SandboxPage",
    "SandboxWeb",
    "SearchIndex",
    "demo_corpus_path",
    "demo_questions_path",
    "import_hotpotqa",
    "import_squad",
    "load_corpus",
    "load_hotpotqa_questions",
    "wiki_url",
    "write_corpus",
]
