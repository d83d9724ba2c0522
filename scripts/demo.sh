#!/usr/bin/env bash
# Placeholder until `linkd serve` exists: shows the CLI's help.
set -euo pipefail
"$1" --help
