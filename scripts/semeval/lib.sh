# What full_loop.sh and gold_table_loop.sh share; sourced from the repository root. Sets `root`,
# `python` (PYTHON, or python3) and `pm` (the debug binary, built here), and enters a work
# directory that is removed on exit. `assist` and `tune_dev` read the caller's `resources` array.
root=$PWD
python=${PYTHON:-python3}
cargo build --quiet --bin pairmetrics
pm=$root/target/debug/pairmetrics
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# split_trial TRIAL.xml[.gz]: dev.xml (sentences 1-250, for MERT) and test.xml (251-500, scored).
split_trial() {
    "$python" - "$1" <<'PY'
import gzip, sys, xml.etree.ElementTree as ET
opener = gzip.open if sys.argv[1].endswith(".gz") else open
for name, keep in (("dev.xml", lambda i: i <= 250), ("test.xml", lambda i: i > 250)):
    with opener(sys.argv[1], "rb") as f:
        root = ET.parse(f).getroot()
    for s in list(root):
        if not keep(int(s.get("id"))):
            root.remove(s)
    ET.ElementTree(root).write(name, encoding="utf-8")
PY
}

# estimate_lm TABLE COLUMN OUT.arpa: a modified Kneser-Ney trigram over COLUMN (`lm estimate`,
# lmplz's estimator; fallback discounts where the text is too small to estimate them).
estimate_lm() {
    "$pm" lm estimate --input "$1" --column "$2" -o 3 --discount-fallback --out "$3" 2> /dev/null
}

# count TABLE: its rows.
count() { "$pm" sql --format csv --table "t=$1" "SELECT count(*) FROM t" | tail -1; }

# score RUN.xml: accuracy, word accuracy and recall on the test half (official rules, -I, best).
score() { "$pm" semeval-eval -I --ref test.xml --out "$1" | tail -1; }

# assist NAME WEIGHTS [l2-assist args...]: NAME.xml on the test half with these weights (JSON
# text, or a weights file), its summary in NAME.log.
assist() {
    local name=$1 weights=$2
    shift 2
    if [ ! -f "$weights" ]; then
        echo "$weights" > "$name.json"
        weights=$name.json
    fi
    "$pm" l2-assist --input test.xml "${resources[@]}" --weights "$weights" --out "$name.xml" "$@" 2> "$name.log" > /dev/null
}

# tune_dev NAME [tune args...]: NAME.json tuned by MERT on the dev half, its report in NAME.out.
tune_dev() {
    local name=$1
    shift
    "$pm" tune --dev dev.xml "${resources[@]}" "$@" --out "$name.json" 2> /dev/null > "$name.out"
}

# oracle CANDIDATES.parquet: the mean of each list's best word accuracy.
oracle() {
    "$pm" sql --format csv --table "c=$1" "SELECT avg(m) FROM (SELECT pair_id, max(word_accuracy) AS m FROM c GROUP BY pair_id)" | tail -1
}
