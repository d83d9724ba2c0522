#!/usr/bin/env bash
# Runs every benchmark of the Benchmarks/ package (release build), then the comparison scripts.
# Usage: scripts/bench.sh [TARGET]   e.g. scripts/bench.sh TokenSigningBenchmarks
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
if [ $# -gt 0 ]; then
  swift package --disable-sandbox benchmark --target "$1"
  if [ "$1" = TokenSigningBenchmarks ]; then openssl speed -seconds 3 ed25519; fi
else
  swift package --disable-sandbox benchmark
fi
