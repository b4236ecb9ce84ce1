"""``scripts/setup.sh`` with the ``dev`` extra installs (or names) the Debian packages the tests need.

README command 2 must do all the set-up on a bare machine: Chromium for ``tests/browser`` and
MediaWiki with PHP for ``tests/sandbox/test_mediawiki_real.py``. As root the script installs what
is missing with apt-get (exercised for real by README command 2 on a bare machine); as another user
it stops before anything else and prints the exact command. ``.ci/run`` has no install list of its own.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ditto_nb.sandbox.mediawiki_install import APT_PACKAGES

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "setup.sh"


def _as_other_user(command: list[str]) -> list[str]:
    """``command`` run as a user who is not root (``nobody`` when this test runs as root)."""
    if os.getuid() != 0:
        return command
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot run the script as another user")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *command]


def _setup_as_other_user(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    tmp_path.chmod(0o777)  # writable by that user: a venv it created would show
    return subprocess.run(_as_other_user(["bash", str(SCRIPT), str(tmp_path / "venv"), "dev"]),
                          env={**os.environ, **env}, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          check=False)


def test_one_package_list_and_it_is_mediawikis_plus_chromium() -> None:
    script = SCRIPT.read_text(encoding="utf-8")
    mediawiki = re.search(r'^MEDIAWIKI_PACKAGES="([^"]+)"', script, re.M)
    assert mediawiki is not None and mediawiki.group(1).split() == list(APT_PACKAGES)
    assert re.search(r'^SYSTEM_PACKAGES="chromium \$MEDIAWIKI_PACKAGES"$', script, re.M)
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "apt-get" not in ci and not any(name in ci for name in APT_PACKAGES[1:])  # php-cli, php-sqlite3, ...


def test_without_root_it_stops_first_with_the_exact_command(tmp_path: Path) -> None:
    done = _setup_as_other_user(tmp_path, DITTO_SETUP_PHP="/nonexistent/php", DITTO_SETUP_CHROMIUM="/nonexistent/chromium")
    assert done.returncode == 1, done.stderr
    packages = " ".join(["chromium", *APT_PACKAGES])
    assert (f"sudo sh -c 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "
            f"--no-install-recommends {packages}'") in done.stderr
    assert not (tmp_path / "venv").exists()  # stopped before anything else
    assert "installing" not in done.stderr


def test_it_names_only_what_is_missing(tmp_path: Path) -> None:
    if shutil.which("php") is None or not Path("/usr/share/mediawiki/maintenance/install.php").is_file():
        pytest.skip("this machine has no MediaWiki yet (README command 2's setup installs it)")
    done = _setup_as_other_user(tmp_path, DITTO_SETUP_CHROMIUM="/nonexistent/chromium")
    assert done.returncode == 1, done.stderr
    assert "--no-install-recommends chromium'" in done.stderr and "mediawiki" not in done.stderr
    assert not (tmp_path / "venv").exists()
