#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/, docs/fuzzing.md) with `-sanitize=fuzzer,address` and runs each for SECONDS
# (default 30) from its seed corpus (Fuzz/Corpus/<target>/). Prints per target the executions, the coverage and
# whether it crashed; exits 1 when any target crashed (or timed out, or ran out of memory), leaving the input in
# .fuzz/crashes/<target>/ (emptied when the target runs again). What libFuzzer adds to the corpus goes to
# .fuzz/corpus/<target>/ (gitignored), so a later run starts where this one stopped.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET…]        e.g. nice -n 19 scripts/fuzz.sh 600 FuzzManifest
# Environment: FUZZ_SCRATCH (build folder, .build-fuzz), FUZZ_WORK (.fuzz), FUZZ_BUILD=0 to skip the build.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

seconds="${1:-30}"
shift || true
all=(FuzzRequestScanner FuzzFlatJSON FuzzTokenCodec FuzzURLRouter FuzzICalendar FuzzManifest FuzzConfiguration FuzzCSV)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
scratch="${FUZZ_SCRATCH:-.build-fuzz}"
work="${FUZZ_WORK:-.fuzz}"

if [ "${FUZZ_BUILD:-1}" != 0 ]; then
  scripts/ensure-deps.sh build
  started=$SECONDS
  mkdir -p "$work/logs"
  # One SwiftPM sanitizer only: given two, SwiftPM passes them as separate -sanitize= flags in a random order, swiftc
  # keeps the last (so half the builds had no coverage instrumentation) and the changing command lines rebuilt
  # everything. `--sanitize=fuzzer` links libFuzzer's main; the combined flag and -Xcc add the address sanitizer.
  sanitizers=(--sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address)
  for target in "${targets[@]}"; do
    echo "fuzz: building $target" >&2
    if ! LINKD_FUZZ=1 swift build --scratch-path "$scratch" -c debug "${sanitizers[@]}" --product "$target" \
      >"$work/logs/build-$target.log" 2>&1; then
      grep -v -e "Cannot export local symbol" "$work/logs/build-$target.log" | tail -40 >&2
      echo "fuzz: the build of $target failed" >&2
      exit 2
    fi
  done
  # Every module of ours must carry the coverage counters, or libFuzzer runs blind.
  for module in LinkdHTTP LinkdServer LinkRouter ICalendar TokenSigning CSVRecords FuzzSupport "${targets[@]}"; do
    dir="$scratch/debug/$module.build"
    [ -d "$dir" ] || continue
    grep -q -a __sancov_cntrs "$dir"/*.swift.o || { echo "fuzz: $module has no coverage instrumentation" >&2; exit 2; }
  done
  echo "fuzz: built ${#targets[@]} targets in $((SECONDS - started)) s" >&2
fi

# The Swift runtime's backtracer would wait on a crash that libFuzzer's own handler reports.
export SWIFT_BACKTRACE=enable=no
failed=0
rows=()
for target in "${targets[@]}"; do
  rm -rf "$work/crashes/$target"  # this run's crashes only
  mkdir -p "$work/corpus/$target" "$work/crashes/$target" "$work/logs"
  log="$work/logs/$target.log"
  echo "fuzz: running $target for $seconds s" >&2
  status=0
  "$scratch/debug/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/crashes/$target/" "$work/corpus/$target" "Fuzz/Corpus/$target" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1 | tr -d ':' | awk '{print $2 "/" $4}' || true)
  artifacts=$(find "$work/crashes/$target" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ "$artifacts" -gt 0 ]; then
    result="CRASHED (exit $status; see $log and $work/crashes/$target/)"
    failed=1
  else
    result="ok"
  fi
  rows+=("$(printf '%-20s %6s s %12s runs  cov/ft %-12s %s' "$target" "$seconds" "${runs:-?}" "${cov:-?}" "$result")")
done
printf '%s\n' "${rows[@]}"
exit $failed
