#!/usr/bin/env bash
# Fails when a build log has a compiler warning for a file of this repository: Sources/, Tests/, Fuzz/, Benchmarks/
# and the package manifests. Warnings of dependencies (their checkouts under any .build*/ directory, or anywhere
# outside the repository) are ignored. `make test` runs it on the output of `swift build --build-tests`
# (docs/testing.md).
#
# Usage: scripts/check-warnings.sh LOGFILE
# Exit: 0 no warning of ours; 1 some (each printed once, with how many times the log has it); 2 usage.
# An incremental build prints the warnings of the files it recompiles only: CI builds from a fresh clone.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1" ] || [ ! -r "$1" ]; then
  echo "usage: scripts/check-warnings.sh LOGFILE (a readable build log)" >&2
  exit 2
fi
log=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."
logical="$PWD/"
physical="$(pwd -P)/"
# SwiftPM names the root package by its identity (the directory's name, lowercased) in its own warnings, e.g.
# "warning: 'linkd': found 1 file(s) which are unhandled; explicitly declare them as resources or exclude them".
identity=$(basename "$PWD" | tr '[:upper:]' '[:lower:]')

# The log's warning lines. One in code a macro expanded is reported at the expansion ("macro expansion #expect:1:22:
# warning: …"), the next line naming where it came from ("`- PATH:LINE:COLUMN: note: expanded code originates here"):
# it is given that place.
warnings() {
  awk '
    function flush() { if (pending != "") print pending; pending = "" }
    /(^|: )warning: / { flush(); pending = $0; next }
    pending != "" && /^`- .*: note: expanded code originates here/ {
      origin = substr($0, 4); origin = substr(origin, 1, index(origin, ": note: expanded code originates here") - 1)
      print origin ": warning: " substr(pending, index(pending, "warning: ") + 9) " (in a macro expansion)"
      pending = ""; next
    }
    { flush() }
    END { flush() }
  ' "$log"
}

ours=()
while IFS= read -r line; do
  if [[ $line == "warning: '"* ]]; then
    # A package-level warning: ours when it names this package.
    name=${line#"warning: '"}
    name=${name%%"'"*}
    [[ $name == "$identity" || $name == linkd ]] && ours+=("$line")
    continue
  fi
  # "PATH:LINE:COLUMN: warning: …" (or "PATH: warning: …"): the path, relative to the repository when inside it.
  path=${line%%": warning: "*}
  [[ $path =~ ^(.*[^0-9:])(:[0-9]+){1,2}$ ]] && path=${BASH_REMATCH[1]}
  case $path in
    "$logical"*) path=${path#"$logical"} ;;
    "$physical"*) path=${path#"$physical"} ;;
    ./*) path=${path#./} ;;
    /*) continue ;;  # outside the repository
  esac
  [[ $path =~ (^|/)\.build[^/]*/ ]] && continue  # dependency checkouts, generated sources
  [[ $path =~ ^(Sources|Tests|Fuzz|Benchmarks)/ || $path =~ ^(Benchmarks/)?Package\.swift$ ]] && ours+=("$line")
done < <(warnings)

if [ ${#ours[@]} -eq 0 ]; then
  echo "check-warnings: no compiler warnings in this repository's files ($log)"
  exit 0
fi
unique=$(printf '%s\n' "${ours[@]}" | sort -u | wc -l)
echo "check-warnings: $unique warning(s) in this repository's files ($log); fix them (docs/testing.md):" >&2
printf '%s\n' "${ours[@]}" | sort | uniq -c | sed -E 's/^ *([0-9]+) (.*)$/\2  [printed \1×]/' >&2
exit 1
