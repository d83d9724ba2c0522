#!/usr/bin/env bash
# The release build of `linkd` that `make run` starts and the benchmarks measure: .build/release/linkd.
#   --static-swift-stdlib      the Swift runtime and Foundation linked in, not loaded as a dozen shared libraries:
#                              no dynamic symbol lookups into them at start, and only the code linkd uses is mapped;
#   -use-ld=lld, -z pack-relative-relocs
#                              the position-independent binary's relocations packed (DT_RELR, glibc ≥ 2.36): 20 KB
#                              instead of 3 MB of relocation entries read, and fewer pages written, at every start.
# Together they take about 10 MB off the resident size (docs/benchmarks.md, "Memory").
set -euo pipefail
cd "$(dirname "$0")/.."
exec swift build -c release --product linkd --static-swift-stdlib \
  -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs "$@"
