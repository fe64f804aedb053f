#!/usr/bin/env bash
# Starts the router on its default configuration. The daemon (app/router)
# and the demo namespaces land with issue 5; until then this reports what
# was built.
set -euo pipefail
build=${1:-build}
echo "run: built the libraries and tests in $build."
echo "run: routerd does not exist yet (issue 5); there is nothing to start."
echo "run: 'make test' runs the test suites, 'make bench' the FIB benchmark."
