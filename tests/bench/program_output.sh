#!/bin/sh
# program_output.sh CHECK -- COMMAND [ARGS...]: runs a bench program (or script) and checks what
# it prints, so that the programs behind the figures in bench/results keep working.
#   CHECK "keys:K1,K2,...": every key starts a line whose last field is a number above 0
#   CHECK "rows:N":         at least N lines "size value" (two numbers, the value above 0)
#   CHECK "ratios:N":       at least N lines "size a b ratio" (lib_ab.sh's summary), all above 0
#   CHECK "comment:K":      a line "# K v1 v2 ...", every value a number above 0
# Fails when the command fails or prints nothing that passes.
set -u
check=$1
shift
[ "$1" = "--" ] && shift
out=$("$@" </dev/null 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
    printf '%s\n' "$out" | tail -20
    echo "FAIL: $* exited with $rc"
    exit 1
fi
case $check in
keys:*)
    for k in $(printf '%s' "${check#keys:}" | tr ',' ' '); do
        if ! printf '%s\n' "$out" | awk -v k="$k" '$1 == k && $NF + 0 > 0 { found = 1 } END { exit !found }'; then
            printf '%s\n' "$out" | tail -20
            echo "FAIL: $* printed no line '$k <positive number>'"
            exit 1
        fi
    done
    ;;
comment:*)
    k=${check#comment:}
    if ! printf '%s\n' "$out" | awk -v k="$k" '
        $1 == "#" && $2 == k && NF > 2 { ok = 1; for (i = 3; i <= NF; i++) if (!($i + 0 > 0)) ok = 0; if (ok) found = 1 }
        END { exit !found }'; then
        printf '%s\n' "$out" | tail -20
        echo "FAIL: $* printed no line '# $k <positive numbers>'"
        exit 1
    fi
    ;;
rows:* | ratios:*)
    want=${check#*:}
    fields=2
    case $check in ratios:*) fields=4 ;; esac
    n=$(printf '%s\n' "$out" | awk -v f=$fields '
        NF == f && $1 ~ /^[0-9]+$/ { ok = 1; for (i = 2; i <= f; i++) if (!($i + 0 > 0)) ok = 0; if (ok) c++ }
        END { print c + 0 }')
    if [ "$n" -lt "$want" ]; then
        printf '%s\n' "$out" | tail -20
        echo "FAIL: $* printed $n rows of $fields positive numbers, expected at least $want"
        exit 1
    fi
    ;;
*)
    echo "program_output.sh: unknown check '$check'"
    exit 2
    ;;
esac
echo "ok: $*"
