#!/usr/bin/env bash
# Compares the ICalendar parser with Debian's libical on the same generated 1 MiB calendar (2,000 events).
# The ICalendarBenchmarks run writes the sample (ICalendarSample.calendar(events: 2000)) to $LINKD_ICS_SAMPLE;
# libical then parses exactly those bytes. Installs libical-dev with apt-get when it is missing.
# Usage: scripts/ics-bench.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export LINKD_ICS_SAMPLE="${LINKD_ICS_SAMPLE:-/tmp/linkd-ics-sample.ics}"

if ! pkg-config --exists libical 2>/dev/null; then
  echo "installing libical-dev (apt-get)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q libical-dev >&2
fi

"$root/scripts/bench.sh" ICalendarBenchmarks

build_dir="$root/.build-ics-bench"
mkdir -p "$build_dir"
gcc -O2 -o "$build_dir/libical-bench" "$root/scripts/libical-bench.c" $(pkg-config --cflags --libs libical)
echo
"$build_dir/libical-bench" "$LINKD_ICS_SAMPLE" 50
swift_bytes=$(stat -c %s "$LINKD_ICS_SAMPLE")
echo "ICalendar: same file, $swift_bytes bytes; MB/s = $swift_bytes / (wall clock p50 of 'ICalendar parse sample' above)"
