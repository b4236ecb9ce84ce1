#!/usr/bin/env bash
# A real MediaWiki (Debian's `mediawiki` package, SQLite search) over HTTPS on 127.0.0.1, loaded
# with HotpotQA paragraphs. Needs: apt-get install -y mediawiki php-cli php-sqlite3 php-intl php-mbstring php-xml
#
#   scripts/mediawiki.sh start  --folder /tmp/wiki --hotpotqa ../shared/data/hotpotqa/dev-150.jsonl --questions 25
#   scripts/mediawiki.sh status --folder /tmp/wiki
#   scripts/mediawiki.sh stop   --folder /tmp/wiki
#
# Everything is written under --folder. PYTHON overrides the interpreter (default: the checkout's
# .venv/bin/python made by scripts/setup.sh, else python3).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PYTHON:-}" ]; then
  PYTHON=python3
  venv="$PWD/.venv/bin/python"  # the checkout root (cd above)
  [ -x "$venv" ] && PYTHON="$venv"
fi
exec "$PYTHON" -m ditto_nb.sandbox.mediawiki_cli "$@"
