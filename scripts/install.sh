#!/usr/bin/env bash
# Installs everything vqa-harness needs on a fresh Debian machine with Python 3.11:
# Debian packages (WordNet 3.0, Java for METEOR/PTB tokenizer), the CPU build of torch,
# the project (editable) with its extras, and the offline NLP resources. Python packages are
# installed at the exact versions of constraints.txt (the locked install, refreshed by
# scripts/lock.sh), so a fresh machine computes with the versions the README's figures were
# made with; pyproject.toml keeps ranges for installs into an environment of your own.
# Usage: bash scripts/install.sh [--test]     (--test also installs test tools: chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
WITH_TEST=0
[ "${1:-}" = "--test" ] && WITH_TEST=1

apt_pkgs=(wordnet-base wordnet-sense-index)
command -v java >/dev/null 2>&1 || apt_pkgs+=(default-jre-headless)
if [ "$WITH_TEST" = 1 ]; then
  command -v chromium >/dev/null 2>&1 || apt_pkgs+=(chromium)
fi
missing=()
for p in "${apt_pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "warning: please install Debian packages: ${missing[*]}" >&2
  fi
fi

# torch first, pinned: that takes the local CPU wheel (an unpinned resolve pulls CUDA).
$PY -m pip install -q --disable-pip-version-check -c constraints.txt torch==2.13.0
extras="resources,plots,hf,h5,openai"
[ "$WITH_TEST" = 1 ] && extras="$extras,test"
$PY -m pip install -q --disable-pip-version-check -c constraints.txt -e ".[$extras]"
harness resources install
