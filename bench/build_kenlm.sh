#!/usr/bin/env bash
# Build KenLM (lmplz, build_binary, query) and its Python module from KenLM's PyPI sdist, for bench/bench_lm.py.
# Needs only the PyPI and Debian registries (no git clone). Installs outside the repository:
#   binaries in $KENLM_HOME/bin (default ~/.cache/kenlm/bin), the `kenlm` module into the current Python.
# Usage: bash bench/build_kenlm.sh        (as root, or with sudo for apt-get). Not run by CI.
set -euo pipefail
KENLM_HOME=${KENLM_HOME:-$HOME/.cache/kenlm}
JOBS=${JOBS:-2}
if command -v apt-get >/dev/null; then
  SUDO=$([ "$(id -u)" = 0 ] && echo || echo sudo)
  dpkg -s libboost-program-options-dev libboost-thread-dev libboost-test-dev libeigen3-dev >/dev/null 2>&1 || { $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq cmake g++ libboost-program-options-dev libboost-system-dev libboost-thread-dev \
    libboost-test-dev zlib1g-dev libbz2-dev liblzma-dev libeigen3-dev >/dev/null; }
fi
mkdir -p "$KENLM_HOME/src" && cd "$KENLM_HOME/src"
rm -f kenlm-*.tar.gz && python -m pip download -q --no-binary kenlm --no-deps --no-build-isolation kenlm -d .   # sdist only; setuptools from this env
SDIST=$(ls kenlm-*.tar.gz | head -1)
rm -rf kenlm && mkdir kenlm && tar -xzf "$SDIST" -C kenlm --strip-components=1
cmake -S kenlm -B build -DCMAKE_BUILD_TYPE=Release -DKENLM_MAX_ORDER=6 >/dev/null
cmake --build build -j "$JOBS" --target lmplz build_binary query
mkdir -p "$KENLM_HOME/bin" && cp build/bin/lmplz build/bin/build_binary build/bin/query "$KENLM_HOME/bin/"
python -m pip install -q --no-build-isolation "$SDIST" || python -m pip install -q "$SDIST"   # the `kenlm` Python module
echo "$SDIST" > "$KENLM_HOME/VERSION"
echo "KenLM built from $SDIST: $KENLM_HOME/bin/{lmplz,build_binary,query}; python -c 'import kenlm' works"
