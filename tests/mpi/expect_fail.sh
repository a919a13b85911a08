#!/bin/sh
# expect_fail.sh [--any-output] REGEX TIMEOUT_SECONDS COMMAND [ARGS...]
# Runs COMMAND, which is expected to FAIL: passes (exit 0) only if COMMAND
# exits non-zero within TIMEOUT_SECONDS and its stderr matches the extended
# regular expression REGEX (with --any-output: stdout or stderr; MPICH's
# Hydra prints its "BAD TERMINATION" report on stdout). A hang (time limit
# reached) is a failure. The command's output is echoed for the log.
set -u
where=stderr
if [ "${1:-}" = "--any-output" ]; then
    where=any
    shift
fi
if [ $# -lt 3 ]; then
    echo "usage: $0 [--any-output] REGEX TIMEOUT_SECONDS COMMAND [ARGS...]" >&2
    exit 2
fi
regex=$1
limit=$2
shift 2
errfile=$(mktemp "${TMPDIR:-/tmp}/expect_fail.XXXXXX")
trap 'rm -f "$errfile"' EXIT INT TERM
start=$(date +%s)
# -k: if TERM is ignored, KILL 5 s later.
if [ "$where" = any ]; then
    timeout -k 5 "$limit" "$@" >"$errfile" 2>&1
else
    timeout -k 5 "$limit" "$@" 2>"$errfile"
fi
rc=$?
end=$(date +%s)
echo "----- $where -----"
cat "$errfile"
echo "------------------"
elapsed=$((end - start))
if [ "$elapsed" -ge "$limit" ]; then
    echo "expect_fail: FAILED: command did not end within ${limit} s (rc=$rc): the job hung" >&2
    exit 1
fi
if [ "$rc" -eq 0 ]; then
    echo "expect_fail: FAILED: command exited 0, a failure was expected" >&2
    exit 1
fi
if ! grep -Eq -- "$regex" "$errfile"; then
    echo "expect_fail: FAILED: exit $rc as expected, but $where does not match /$regex/" >&2
    exit 1
fi
echo "expect_fail: OK: exit $rc after ${elapsed} s, $where matches /$regex/"
exit 0
