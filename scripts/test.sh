#!/usr/bin/env bash
# `npm test`: the type-check (`tsc -b`) and the suite (`vitest run`, with the arguments given) at
# once. The suite keeps about one and a half of the two CI cores busy, so the type-check runs in
# what it leaves: about 30 s less than one after the other. Fails if either fails.
set -uo pipefail
tsc -b &
typecheck=$!
vitest run "$@"
tests=$?
wait $typecheck
types=$?
if [ $types -ne 0 ]; then echo "npm test: the type-check (tsc -b) failed" >&2; fi
exit $((tests != 0 || types != 0))
