"""A real MediaWiki on 127.0.0.1 for tests and benchmarks (Debian's ``mediawiki`` package).

:class:`MediaWikiSite` installs MediaWiki (``maintenance/install.php``, SQLite backend) into an
output folder, imports pages (``maintenance/importDump.php`` over a generated XML export,
format 0.11: https://www.mediawiki.org/xml/export-0.11.xsd), builds the search index
(``maintenance/rebuildtextindex.php``; MediaWiki's default SQLite search, which requires every
term to match) and serves it: PHP's built-in web server on a free loopback port behind a TLS
front (:mod:`ditto_nb.sandbox.tls_front`) whose certificate comes from a locally generated
``trustme`` CA. The kit reaches it as ``https://wiki.test:<port>`` through
``NetworkPolicy.resolve_overrides`` and ``ca_bundle``, exactly like the sandbox web.

Everything it writes lives in the output folder (database, LocalSettings, uploads, caches,
temporary files, PHP sessions, logs, certificates); the MediaWiki tree under
``/usr/share/mediawiki`` is used read-only through ``MW_CONFIG_FILE``. It needs the Debian
packages ``mediawiki php-cli php-sqlite3 php-intl php-mbstring php-xml``.

Command line (also ``scripts/mediawiki.sh``)::

    python -m ditto_nb.sandbox.mediawiki_cli start  --folder DIR --hotpotqa FILE [--questions N]
    python -m ditto_nb.sandbox.mediawiki_cli status --folder DIR
    python -m ditto_nb.sandbox.mediawiki_cli stop   --folder DIR
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import quote, unquote

import trustme

from ditto_nb.errors import ConfigError
from ditto_nb.sandbox.mediawiki_files import ROUTER_PHP, probe_api
from ditto_nb.sandbox.mediawiki_install import APT_PACKAGES, MEDIAWIKI_DIR, MediaWikiInstall
from ditto_nb.web.policy import NetworkPolicy
from ditto_nb.runtime.processes import pid_alive

_START_TIMEOUT_SECONDS = 30.0
_REQUEST_LINE = re.compile(r"\[(\d{3})\]: (GET|HEAD|POST) (\S+)")


class MediaWikiSite(MediaWikiInstall):
    """A MediaWiki installed into ``folder`` and served over HTTPS on 127.0.0.1.

    Use as a context manager (install if needed, start; stop on exit) or call
    :meth:`install`, :meth:`import_pages` (from :class:`~ditto_nb.sandbox.mediawiki_install.MediaWikiInstall`),
    :meth:`start` and :meth:`stop`. :meth:`attach`
    returns the site a ``start`` command left running.

    Constructed as :class:`~ditto_nb.sandbox.mediawiki_install.MediaWikiInstall` (same arguments).
    """

    _port: int | None = None
    _pids: tuple[int, ...] = ()

    # ------------------------------------------------------------------ paths
    @property
    def ca_path(self) -> Path:
        """PEM file of the local CA that issued the TLS front's certificate."""
        return self.folder / "tls" / "ca.pem"

    @property
    def access_log(self) -> Path:
        """The router's access log: one line per request (``[200]: GET /wiki/Title``)."""
        return self.folder / "logs" / "access.log"

    @property
    def server_log(self) -> Path:
        """Output of PHP's built-in server and of the TLS front."""
        return self.folder / "logs" / "servers.log"

    @property
    def _state_file(self) -> Path:
        return self.folder / "running.json"

    # ------------------------------------------------------------------ serve
    def start(self) -> MediaWikiSite:
        """Serve the wiki: PHP's built-in server on a free loopback port behind the TLS front.

        Returns:
            self, once the search API answers over HTTPS.

        Raises:
            ConfigError: not installed, already running, or the servers did not come up.
        """
        if not self.installed:
            raise ConfigError(f"no MediaWiki installed in {self.folder}; call install() first")
        if self._state_file.is_file():
            raise ConfigError(f"a wiki is already running from {self.folder} (stop it first)")
        tls = self.folder / "tls"
        tls.mkdir(exist_ok=True)
        ca = trustme.CA()
        ca.cert_pem.write_to_path(str(self.ca_path))
        ca.issue_cert(self.host).private_key_and_cert_chain_pem.write_to_path(str(tls / "server.pem"))
        (self.folder / "docroot").mkdir(exist_ok=True)
        link = self.folder / "docroot" / "w"
        if not link.is_symlink():
            link.symlink_to(self.mediawiki_dir)
        router = self.folder / "router.php"
        router.write_text(ROUTER_PHP.replace("@MEDIAWIKI_DIR@", str(self.mediawiki_dir))
                          .replace("@ACCESS_LOG@", str(self.access_log)), encoding="utf-8")
        port_file = tls / "port"
        port_file.unlink(missing_ok=True)
        self.access_log.parent.mkdir(exist_ok=True)
        backend_port = _free_port()
        with self.server_log.open("ab") as log:
            php = subprocess.Popen(
                [self.php, *self._php_flags(), "-S", f"127.0.0.1:{backend_port}", "-t", str(self.folder / "docroot"), str(router)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=self._env(), cwd=self.folder, start_new_session=True,
            )
            front = subprocess.Popen(
                [sys.executable, "-m", "ditto_nb.sandbox.tls_front", "--cert", str(tls / "server.pem"),
                 "--backend-port", str(backend_port), "--port-file", str(port_file)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=self.folder, start_new_session=True,
            )
        self._pids = (php.pid, front.pid)
        self._state_file.write_text(json.dumps({"pids": self._pids, "port": None}), encoding="utf-8")
        try:
            self._port = self._wait_for_port(port_file, [php, front])
            (self.folder / "ServerSettings.php").write_text(
                f"<?php\n$wgServer = 'https://{self.host}:{self._port}';\n", encoding="utf-8")
            self._state_file.write_text(json.dumps({"pids": self._pids, "port": self._port, "host": self.host}),
                                        encoding="utf-8")
            self._wait_for_api()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_for_port(self, port_file: Path, processes: list[subprocess.Popen[bytes]]) -> int:
        deadline = time.monotonic() + _START_TIMEOUT_SECONDS
        while not port_file.is_file():
            if any(process.poll() is not None for process in processes) or time.monotonic() > deadline:
                raise ConfigError(f"the wiki's servers did not start; see {self.server_log}")
            time.sleep(0.05)
        return int(port_file.read_text(encoding="ascii"))

    def _wait_for_api(self) -> None:
        deadline = time.monotonic() + _START_TIMEOUT_SECONDS
        problem = ""
        while time.monotonic() < deadline:
            problem = probe_api(self.host, self.port, self.ca_path)
            if not problem:
                return
            time.sleep(0.2)
        raise ConfigError(f"the wiki's API did not answer over HTTPS: {problem}; see {self.server_log}")

    def stop(self) -> None:
        """Stop the servers this site (or the ``start`` command on this folder) started (idempotent)."""
        pids = list(self._pids)
        if self._state_file.is_file():
            pids += [int(pid) for pid in json.loads(self._state_file.read_text(encoding="utf-8")).get("pids", [])]
        for pid in dict.fromkeys(pids):
            _terminate_group(pid)
        self._state_file.unlink(missing_ok=True)
        self._pids, self._port = (), None

    @classmethod
    def attach(cls, folder: str | Path) -> MediaWikiSite | None:
        """The site a ``start`` command left running in ``folder``, or None when none runs."""
        site = cls(folder)
        if not site._state_file.is_file():
            return None
        state = json.loads(site._state_file.read_text(encoding="utf-8"))
        alive = [int(pid) for pid in state.get("pids", []) if pid_alive(int(pid))]
        if not state.get("port") or len(alive) != len(state.get("pids", [])):
            site.stop()
            return None
        site.host, site._port, site._pids = str(state.get("host", site.host)), int(state["port"]), ()
        return site if not probe_api(site.host, site.port, site.ca_path) else None

    def __enter__(self) -> MediaWikiSite:
        self.install()
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    # ------------------------------------------------------------------ addresses
    @property
    def port(self) -> int:
        """The HTTPS port on 127.0.0.1. Raises ConfigError when not running."""
        if self._port is None:
            raise ConfigError("the wiki is not running")
        return self._port

    @property
    def origin(self) -> str:
        """``https://<host>:<port>``."""
        return f"https://{self.host}:{self.port}"

    @property
    def api_url(self) -> str:
        """The Action API URL ``https://<host>:<port>/w/api.php``."""
        return f"{self.origin}/w/api.php"

    @property
    def allowed_origins(self) -> tuple[str, ...]:
        """The one origin the wiki is served from."""
        return (self.origin,)

    @property
    def resolve_overrides(self) -> dict[str, str]:
        """``{host: "127.0.0.1"}`` for :class:`NetworkPolicy`."""
        return {self.host: "127.0.0.1"}

    def page_url(self, title: str) -> str:
        """``https://<host>:<port>/wiki/<Title_with_underscores>``."""
        return f"{self.origin}/wiki/{quote(title.replace(' ', '_'), safe='/:(),_-.!~*')}"

    def policy(self, **overrides: Any) -> NetworkPolicy:
        """A :class:`NetworkPolicy` allowing the wiki (its CA, its ``.test`` override); ``overrides`` win."""
        fields: dict[str, Any] = {"allowed_origins": self.allowed_origins, "ca_bundle": str(self.ca_path),
                                  "resolve_overrides": self.resolve_overrides}
        fields.update(overrides)
        return NetworkPolicy(**fields)

    def log_offset(self) -> int:
        """The access log's size in bytes (pass to :meth:`pages_requested` to see later requests)."""
        return self.access_log.stat().st_size if self.access_log.is_file() else 0

    def pages_requested(self, since: int = 0) -> list[str]:
        """Titles of ``/wiki/<Title>`` pages served since byte ``since`` of the access log, in order."""
        if not self.access_log.is_file():
            return []
        with self.access_log.open("rb") as handle:
            handle.seek(since)
            text = handle.read().decode("utf-8", "replace")
        titles = []
        for match in _REQUEST_LINE.finditer(text):
            path = match.group(3).split("?", 1)[0]
            if path.startswith("/wiki/"):
                titles.append(unquote(path[len("/wiki/"):]).replace("_", " "))
        return titles


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _terminate_group(pid: int) -> None:
    """SIGTERM the process group led by ``pid`` (started with ``start_new_session``), then SIGKILL."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    return
            except ChildProcessError:
                if not pid_alive(pid):
                    return
            time.sleep(0.05)


__all__ = ["APT_PACKAGES", "MEDIAWIKI_DIR", "MediaWikiSite"]
