#!/usr/bin/env bash
# `pairmetrics semeval-eval` against SemEval-2014 Task 5's official scorer itself, on every
# system run the task published, with every option combination:
#
#   scripts/semeval/check_official.sh REPO
#
# REPO is a checkout of github.com/proycon/semeval2014task5 (its corpus/, evaluation/ and
# libsemeval2014task5/); the official scorer needs `pip install lxml nltk`. For -S, the stemmer's
# language is the run's L2. Prints one line per difference and a count; exits 1 on any.
set -euo pipefail
repo=$(realpath "$1")
cd "$(dirname "$0")/../.."
cargo build --quiet --bin pairmetrics
bin=$PWD/target/debug/pairmetrics
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A stem=([de]=german [es]=spanish [en]=english)
same=0 differ=0
for run in "$repo"/evaluation/*.xml; do
    name=$(basename "$run")
    pair=$(cut -d. -f2 <<< "$name")
    gold=$repo/corpus/$pair.gold.tokenised.xml
    for flags in "-I" "-I -a" "-I -i" "-I -a -i" "-I -S ${stem[${pair#*-}]}" "-I -a -i -S ${stem[${pair#*-}]}"; do
        cp "$run" "$work/run.xml"
        # shellcheck disable=SC2086
        (cd "$work" && PYTHONPATH=$repo python3 -c 'import sys; from libsemeval2014task5.evaluation import main; sys.argv[0] = "evaluate"; main()' \
            $flags --ref "$gold" --out run.xml > /dev/null 2>&1)
        want=$(tail -1 "$work/run.summary.score")
        # shellcheck disable=SC2086
        got=$("$bin" semeval-eval $flags --ref "$gold" --out "$run" 2> /dev/null | tail -1)
        if [ "$got" = "$want" ]; then
            same=$((same + 1))
        else
            differ=$((differ + 1))
            echo "$name $flags: pairmetrics [$got], official [$want]"
        fi
    done
done
echo "$same equal, $differ different"
[ "$differ" = 0 ]
