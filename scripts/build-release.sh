#!/usr/bin/env bash
# The release build of `linkd` that `make run` starts and the benchmarks measure: .build/release/linkd.
#   --static-swift-stdlib      the Swift runtime and Foundation linked in, not loaded as a dozen shared libraries:
#                              no dynamic symbol lookups into them at start, and only the code linkd uses is mapped;
#   -use-ld=lld, -z pack-relative-relocs
#                              the position-independent binary's relocations packed (DT_RELR, glibc ≥ 2.36): 20 KB
#                              instead of 3 MB of relocation entries read, and fewer pages written, at every start;
#   --no-export-dynamic        the executable's 52,000 symbols (the Swift runtime and Foundation's among them) not
#                              exported: nothing loads linkd as a library, and their tables were 3.5 MB resident,
#                              read by the dynamic linker for every symbol a shared library looks up;
#   -function-sections, --symbol-ordering-file scripts/linkd.order
#                              each function in a section of its own, and the functions a start and the common
#                              requests run (scripts/symbol-order.sh writes the list) placed together: the kernel
#                              maps code in 64 KB windows around each page touched, so run code spread over the
#                              binary's 32 MB made 22 MB of it resident; packed, a few megabytes;
#   -disable-llvm-merge-functions-pass
#                              no merged functions: LLVM's pass leaves each merged body's callers a five-byte jump
#                              to a private function with no symbol, which no list can name, so the ones a start
#                              runs stayed spread over the binary (a 64 KB window each).
# Together they take about 25 MB off the resident size at start: the first two about 10 MB, the last three 15 (an
# empty store: 50.6 → 35.9 MB; docs/benchmarks.md, "Memory").
set -euo pipefail
cd "$(dirname "$0")/.."
exec swift build -c release --product linkd --static-swift-stdlib \
  -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
  -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -Xllvm -Xswiftc -function-sections -Xcc -ffunction-sections \
  -Xswiftc -Xfrontend -Xswiftc -disable-llvm-merge-functions-pass \
  -Xlinker "--symbol-ordering-file=$PWD/scripts/linkd.order" -Xlinker --no-warn-symbol-ordering "$@"
