#!/bin/sh
# run_case.sh EXPECTED_RC STDERR_REGEX STDOUT_REGEX -- command...
# Runs the command, checks its exit code and that stderr / stdout match the extended regular
# expressions ("" = no check; "!REGEX" = must NOT match).
expected_rc=$1; err_re=$2; out_re=$3; shift 3
[ "$1" = "--" ] && shift
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
status=0
check() {  # check NAME FILE REGEX
  [ -z "$3" ] && return 0
  case $3 in
    !*) if grep -Eq -- "${3#!}" "$2"; then echo "FAIL: $1 matches forbidden /${3#!}/"; status=1; fi ;;
    *) if ! grep -Eq -- "$3" "$2"; then echo "FAIL: $1 does not match /$3/"; status=1; fi ;;
  esac
}
if [ "$rc" != "$expected_rc" ]; then echo "FAIL: exit code $rc, expected $expected_rc"; status=1; fi
check stderr "$tmp/err" "$err_re"
check stdout "$tmp/out" "$out_re"
if [ $status != 0 ] || [ -n "$VERBOSE" ]; then
  echo "--- command: $*"; echo "--- stdout:"; head -c 4000 "$tmp/out"; echo "--- stderr:"; head -c 4000 "$tmp/err"
fi
exit $status
