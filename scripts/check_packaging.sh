#!/usr/bin/env bash
# Packaging check: build the wheel, install it into a fresh virtualenv outside the repository,
# check that `import ditto_nb` prints nothing and the CLI answers, then run mypy --strict.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 -m venv "$tmp/build"
"$tmp/build/bin/pip" install -q build 2>&1 | grep -v "^WARNING: Location" || true
"$tmp/build/bin/python" -m build -q --wheel --outdir "$tmp/dist" "$repo" >/dev/null 2>&1 || { echo "wheel build failed"; exit 1; }

python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q "$tmp/dist"/ditto_nb-*.whl 2>&1 | grep -v "^WARNING: Location" || true
cd "$tmp"
out=$("$tmp/venv/bin/python" -c "import ditto_nb, ditto_nb.runtime, ditto_nb.workers, ditto_nb.web, ditto_nb.sandbox, ditto_nb.patterns.web_qa, ditto_nb.patterns.deep_research, ditto_nb.notebook" 2>&1) || { echo "importing the installed wheel failed:"; echo "$out"; exit 1; }
if [ -n "$out" ]; then echo "import ditto_nb printed output:"; echo "$out"; exit 1; fi
"$tmp/venv/bin/ditto-nb" --help >/dev/null
"$tmp/venv/bin/python" -c "import importlib.resources as r; assert r.files('ditto_nb').joinpath('data/demo_corpus.jsonl').is_file()"
echo "wheel: installs outside the repository, imports silently, CLI answers"

"$tmp/venv/bin/pip" install -q "mypy>=1.11,<3" "types-PyYAML>=6.0" 2>&1 | grep -v "^WARNING: Location" || true
cd "$repo"
"$tmp/venv/bin/mypy" --config-file mypy.ini ditto_nb
