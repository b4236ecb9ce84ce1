"""Installing Debian's MediaWiki into a folder and importing pages: :class:`MediaWikiInstall`.

``maintenance/install.php`` (SQLite backend), then ``importDump.php`` over a generated XML export
(format 0.11: https://www.mediawiki.org/xml/export-0.11.xsd), ``rebuildtextindex.php`` and
``initSiteStats.php``. Serving the installed wiki is :class:`ditto_nb.sandbox.mediawiki.MediaWikiSite`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from ditto_nb.errors import ConfigError
from ditto_nb.sandbox.corpus import SandboxPage
from ditto_nb.sandbox.mediawiki_files import dump_xml, settings_php, wiki_title

MEDIAWIKI_DIR = Path("/usr/share/mediawiki")
APT_PACKAGES = ("mediawiki", "php-cli", "php-sqlite3", "php-intl", "php-mbstring", "php-xml")


class MediaWikiInstall:
    """A MediaWiki installed into ``folder`` (not served; see :class:`~ditto_nb.sandbox.mediawiki.MediaWikiSite`).

    Args:
        folder: the output folder (created); everything the site writes goes here.
        host: the ``.test`` host name the wiki is served as.
        mediawiki_dir: the MediaWiki tree (read-only).
        php: the PHP command line binary.
        workers: PHP built-in server worker processes (``PHP_CLI_SERVER_WORKERS``).
    """

    def __init__(
        self,
        folder: str | Path,
        host: str = "wiki.test",
        *,
        mediawiki_dir: str | Path = MEDIAWIKI_DIR,
        php: str = "php",
        workers: int = 4,
    ) -> None:
        if not host.endswith(".test"):
            raise ConfigError(f"the wiki host must be under .test, got {host!r}")
        self.folder = Path(folder).resolve()
        self.host = host.lower()
        self.mediawiki_dir = Path(mediawiki_dir)
        self.php = php
        self.workers = workers

    # ------------------------------------------------------------------ paths
    @property
    def config_file(self) -> Path:
        """The site's ``LocalSettings.php`` (given to MediaWiki through ``MW_CONFIG_FILE``)."""
        return self.folder / "LocalSettings.php"

    @property
    def _titles_file(self) -> Path:
        return self.folder / "imported-titles.json"

    def _env(self) -> dict[str, str]:
        tmp = self.folder / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        return {**os.environ, "MW_CONFIG_FILE": str(self.config_file), "TMPDIR": str(tmp),
                "PHP_CLI_SERVER_WORKERS": str(self.workers)}

    def _php_flags(self) -> list[str]:
        tmp, sessions = self.folder / "tmp", self.folder / "sessions"
        sessions.mkdir(parents=True, exist_ok=True)
        return ["-d", f"sys_temp_dir={tmp}", "-d", f"upload_tmp_dir={tmp}", "-d", f"session.save_path={sessions}",
                "-d", "memory_limit=512M", "-d", "opcache.enable_cli=1"]

    def _maintenance(self, script: str, *args: str, stdin: bytes | None = None) -> str:
        command = [self.php, *self._php_flags(), str(self.mediawiki_dir / "maintenance" / script), *args]
        done = subprocess.run(command, input=stdin, capture_output=True, env=self._env(), cwd=self.folder, check=False)
        output = (done.stdout + done.stderr).decode("utf-8", "replace")
        if done.returncode != 0:
            raise ConfigError(f"MediaWiki {script} failed (exit {done.returncode}): {output.strip()[-2000:]}")
        return output

    # ------------------------------------------------------------------ install and import
    def check_prerequisites(self) -> None:
        """Raise :class:`ConfigError` naming the missing Debian packages when PHP or MediaWiki is absent."""
        missing = shutil.which(self.php) is None or not (self.mediawiki_dir / "maintenance" / "install.php").is_file()
        if not missing:
            modules = subprocess.run([self.php, "-m"], capture_output=True, text=True, check=False).stdout.lower()
            missing = any(name not in modules for name in ("pdo_sqlite", "intl", "mbstring", "xml"))
        if missing:
            raise ConfigError(
                "MediaWiki needs Debian packages: apt-get install -y " + " ".join(APT_PACKAGES)
                + f" (looked for {self.php!r} and {self.mediawiki_dir}/maintenance/install.php)"
            )

    @property
    def installed(self) -> bool:
        """True when the folder holds an installed wiki."""
        return self.config_file.is_file() and (self.folder / "data" / "ditto.sqlite").is_file()

    def install(self) -> None:
        """Install MediaWiki into the folder (SQLite); a no-op when already installed.

        Raises:
            ConfigError: missing packages, or ``install.php`` failed (its output is in the message).
        """
        if self.installed:
            return
        self.check_prerequisites()
        self.folder.mkdir(parents=True, exist_ok=True)
        for leftover in (self.config_file, self.folder / "data"):
            if leftover.is_dir():
                shutil.rmtree(leftover)
            elif leftover.exists():
                leftover.unlink()
        for name in ("images", "cache", "logs", "tls", "import"):
            (self.folder / name).mkdir(parents=True, exist_ok=True)
        self._maintenance(
            "install.php", "--dbtype", "sqlite", "--dbpath", str(self.folder / "data"), "--dbname", "ditto",
            "--server", f"https://{self.host}", "--scriptpath", "/w", "--lang", "en",
            "--pass", "ditto-local-wiki-admin", "--confpath", str(self.folder), "Ditto Wiki", "Admin",
        )
        (self.folder / "DittoSettings.php").write_text(settings_php(self.folder), encoding="utf-8")
        with self.config_file.open("a", encoding="utf-8") as handle:
            handle.write("\nrequire_once __DIR__ . '/DittoSettings.php';\n")
        self._titles_file.write_text("[]", encoding="utf-8")

    def imported_titles(self) -> list[str]:
        """Titles imported so far (MediaWiki form: first letter upper-case, spaces)."""
        if not self._titles_file.is_file():
            return []
        titles = json.loads(self._titles_file.read_text(encoding="utf-8"))
        return [str(title) for title in titles]

    def import_pages(self, pages: Iterable[SandboxPage]) -> int:
        """Import pages (one wiki page per title, its paragraphs as wikitext) and rebuild the search index.

        Titles already imported and titles MediaWiki cannot hold (``# < > [ ] | { }``, namespace
        prefixes) are skipped; a repeated title keeps its first page.

        Args:
            pages: pages with ``title`` and ``paragraphs`` (e.g. from ``import_hotpotqa``).

        Returns:
            The number of pages imported by this call.

        Raises:
            ConfigError: not installed, or a maintenance script failed.
        """
        if not self.installed:
            raise ConfigError(f"no MediaWiki installed in {self.folder}; call install() first")
        known = set(self.imported_titles())
        batch: dict[str, list[str]] = {}
        for page in pages:
            title = wiki_title(page.title)
            if title is None or title in known or title in batch or not page.paragraphs:
                continue
            batch[title] = list(page.paragraphs)
        if not batch:
            return 0
        dump = self.folder / "import" / f"pages-{len(known)}-{len(batch)}.xml"
        dump.write_text(dump_xml(batch), encoding="utf-8")
        self._maintenance("importDump.php", "--no-updates", str(dump))
        self._maintenance("rebuildtextindex.php")
        self._maintenance("initSiteStats.php", "--update")
        self._titles_file.write_text(json.dumps(sorted(known | set(batch)), ensure_ascii=False), encoding="utf-8")
        return len(batch)


__all__ = ["APT_PACKAGES", "MEDIAWIKI_DIR", "MediaWikiInstall"]
