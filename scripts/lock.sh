#!/usr/bin/env bash
# Refreshes constraints.txt, the locked install: the exact version of every package that
# `scripts/install.sh --test` pulls in, resolved from pyproject.toml's ranges in a new virtual
# environment on this kind of machine (Debian, Python 3.11, x86-64).
#
#     bash scripts/lock.sh            # writes constraints.txt; review `git diff constraints.txt`
#
# install.sh installs with `-c constraints.txt`, so a fresh machine gets the versions the
# README's figures were made with. Re-run this after changing a dependency in pyproject.toml,
# then re-run the README's figures (scripts/readme_figures.py) and the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$PY -m venv "$work/venv"
pip="$work/venv/bin/python -m pip"
$pip install -q --disable-pip-version-check torch==2.13.0
# Every extra install.sh --test installs (keep in step with scripts/install.sh).
extras=$(grep -E '^extras=' scripts/install.sh | head -n 1 | sed -E 's/^extras="([^"]*)"/\1/')
$pip install -q --disable-pip-version-check -e ".[$extras,test]"
{
  echo "# The locked install: exact versions of every package scripts/install.sh --test installs,"
  echo "# resolved by scripts/lock.sh on $(date -u +%Y-%m-%d) ($($PY --version), $(uname -m))."
  echo "# Refresh with: bash scripts/lock.sh"
  $pip freeze --disable-pip-version-check --exclude-editable | grep -viE '^(vqa-harness|-e )' | sort -f
} > constraints.txt
echo "constraints.txt: $(grep -vc '^#' constraints.txt) packages"
