#!/usr/bin/env bash
# Set up a virtualenv for ditto_nb, with a portable llama.cpp build for the local model.
#
#   bash scripts/setup.sh VENV EXTRAS       e.g.  bash scripts/setup.sh .venv local
#                                                 bash scripts/setup.sh .venv dev,local,local-small
#
# `pip install llama-cpp-python` compiles llama.cpp with -march=native: on a VM whose CPU
# advertises instructions it cannot run (AMX, seen on this project's machines) the server then
# dies with SIGILL on its first prompt. So when EXTRAS holds `local` or `local-small`, this script
# builds llama-cpp-python once with portable flags (no -march=native, never AMX, AVX2/FMA/F16C
# baseline, no AVX-512; text only: LLAVA_BUILD=OFF skips the multimodal mtmd library, which the
# kit never loads) into a cache directory named by those flags,
# ~/.cache/ditto_nb/wheels/<tag>/ (--no-cache-dir: pip's own wheel cache is keyed by the sdist, not
# by CMAKE_ARGS, and would hand back a native wheel built earlier), installs that wheel with its
# [server] extra, and only then installs ditto_nb, whose requirement is then already satisfied, so
# pip never builds the sdist natively. The flags are ditto_nb.local_model.health.PORTABLE_CMAKE_ARGS
# (a test checks both are the same).
#
# When EXTRAS holds `dev`, the test suite's system programs come first, before anything else is
# done: Debian's Chromium (tests/browser drives notebook 01 in it; `playwright install` cannot
# download here) and Debian's MediaWiki with PHP's CLI and modules (tests/sandbox/
# test_mediawiki_real.py). Missing ones are installed with apt-get when this runs as root;
# otherwise the script stops with the exact command to run. The package list is SYSTEM_PACKAGES
# below (MEDIAWIKI_PACKAGES equals ditto_nb.sandbox.mediawiki_install.APT_PACKAGES; a test checks).
set -euo pipefail
venv=${1:?usage: bash scripts/setup.sh VENV EXTRAS (e.g. .venv local)}
extras=${2:-local}
repo=$(cd "$(dirname "$0")/.." && pwd)
export PIP_DISABLE_PIP_VERSION_CHECK=1

LLAMA_VERSION=0.3.36
PORTABLE_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAVA_BUILD=OFF"
TAG=llama-avx2-text   # names the flag set above; change it whenever the flags change

# The dev extra's system packages: Chromium for tests/browser, MediaWiki + PHP for the real-wiki test.
MEDIAWIKI_PACKAGES="mediawiki php-cli php-sqlite3 php-intl php-mbstring php-xml"
SYSTEM_PACKAGES="chromium $MEDIAWIKI_PACKAGES"
CHROMIUM=${DITTO_SETUP_CHROMIUM:-/usr/bin/chromium}   # the path tests/browser launches
PHP=${DITTO_SETUP_PHP:-php}
MEDIAWIKI_DIR=${DITTO_SETUP_MEDIAWIKI:-/usr/share/mediawiki}

missing_system_packages() {
  # Print those of SYSTEM_PACKAGES that are missing (space-separated; nothing when all are there).
  local missing=()
  [ -x "$CHROMIUM" ] || missing+=(chromium)
  if ! command -v "$PHP" >/dev/null 2>&1 || [ ! -f "$MEDIAWIKI_DIR/maintenance/install.php" ]; then
    # shellcheck disable=SC2206 # one word per package
    missing+=($MEDIAWIKI_PACKAGES)
  else
    local modules
    modules=$("$PHP" -m 2>/dev/null | tr '[:upper:]' '[:lower:]')
    grep -qx pdo_sqlite <<<"$modules" || missing+=(php-sqlite3)
    grep -qx intl <<<"$modules" || missing+=(php-intl)
    grep -qx mbstring <<<"$modules" || missing+=(php-mbstring)
    grep -qx xml <<<"$modules" || missing+=(php-xml)
  fi
  echo "${missing[*]}"
}

if [[ ",$extras," == *",dev,"* ]]; then
  missing=$(missing_system_packages)
  if [ -n "$missing" ]; then
    command="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing"
    if [ "$(id -u)" != 0 ]; then
      echo "setup: the dev extra's tests need Debian packages that are missing: $missing" >&2
      echo "setup: run this as root, then run setup again:" >&2
      echo "  sudo sh -c '$command'" >&2
      exit 1
    fi
    echo "setup: installing Debian packages for the dev extra's tests: $missing (Chromium: tests/browser; MediaWiki, PHP: tests/sandbox/test_mediawiki_real.py)" >&2
    apt-get update -qq -o DPkg::Lock::Timeout=600
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends $missing >/dev/null
    left=$(missing_system_packages)
    if [ -n "$left" ]; then
      echo "setup: still missing after apt-get install: $left" >&2
      exit 1
    fi
  fi
  echo "setup: system packages for the dev extra's tests present ($("$CHROMIUM" --version 2>/dev/null | head -n 1); $("$PHP" --version | head -n 1 | cut -d' ' -f1-2); MediaWiki in $MEDIAWIKI_DIR)" >&2
fi

[ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
pip="$venv/bin/pip"

if [[ ",$extras," == *",local,"* || ",$extras," == *",local-small,"* ]]; then
  wheels="${DITTO_WHEEL_CACHE:-$HOME/.cache/ditto_nb/wheels}/$TAG"
  mkdir -p "$wheels"
  if [ -f "$wheels/CMAKE_ARGS" ] && [ "$(cat "$wheels/CMAKE_ARGS")" != "$PORTABLE_CMAKE_ARGS" ]; then
    echo "setup: $wheels was built with other flags; rebuilding" >&2
    rm -f "$wheels"/llama_cpp_python-*.whl
  fi
  wheel=$(ls "$wheels"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n 1 || true)
  if [ -z "$wheel" ]; then
    echo "setup: building llama-cpp-python $LLAMA_VERSION once with portable flags, text only (about 3 minutes on 2 cores)" >&2
    echo "setup: CMAKE_ARGS=$PORTABLE_CMAKE_ARGS" >&2
    build=$(mktemp -d)
    CMAKE_ARGS="$PORTABLE_CMAKE_ARGS" "$pip" wheel -q --no-cache-dir --no-deps --no-binary llama-cpp-python \
      "llama-cpp-python==$LLAMA_VERSION" -w "$build"
    mv "$build"/llama_cpp_python-"$LLAMA_VERSION"-*.whl "$wheels"/
    rm -rf "$build"
    wheel=$(ls "$wheels"/llama_cpp_python-"$LLAMA_VERSION"-*.whl | head -n 1)
  fi
  printf '%s' "$PORTABLE_CMAKE_ARGS" > "$wheels/CMAKE_ARGS"
  echo "setup: installing $(basename "$wheel") (portable build) into $venv" >&2
  # --force-reinstall: a venv that already holds a native build of the same version gets this one
  "$pip" install -q --force-reinstall --no-deps "$wheel"
  "$pip" install -q "$wheel[server]"
fi
echo "setup: installing ditto_nb[$extras] (editable) and its pinned dependencies into $venv" >&2
"$pip" install -q -e "$repo[$extras]"
echo "setup: done ($venv)" >&2
