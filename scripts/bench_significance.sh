#!/usr/bin/env bash
# bootstrap_ci, paired_bootstrap and approx_randomization over 10M rows, through `pairmetrics sql`:
# LeD-like scores (ratios of small integers: few distinct values, the usual case) and continuous
# scores (every row distinct, the worst case for the state); and corpus BLEU's paired tests over
# rows of BLEU statistics: two systems (STAT_ROWS, default 1M), and SYSTEMS systems (default 20)
# of SEGMENTS segments each (default 10M) against a baseline in one GROUP BY; sacrebleu 2.6.0's
# own paired bootstrap beside pairmetrics' copy of its draws on the same statistics, whose
# p-value, mean and interval the script checks are sacrebleu's. Needs python3 with venv (sacrebleu
# is installed into $BENCH_DIR). Rewrites the "Significance" section of BENCHMARKS.md.
#
#   scripts/bench_significance.sh [ROWS]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-10000000}
DIR=${BENCH_DIR:-/tmp/pm-bench}/significance
mkdir -p "$DIR"
cargo build --release --quiet --bin pairmetrics
BIN=$PWD/target/release/pairmetrics
# a: k / n with n in 1..40 (as LeD over sentences of up to 40 tokens); b: a nudged; c: continuous.
"$BIN" sql --out "$DIR/scores.parquet" "SELECT value AS pair_id,
    CAST(value * 7919 % 41 AS DOUBLE) / CAST(1 + value * 104729 % 40 AS DOUBLE) AS a,
    CAST((value * 7919 + 3) % 41 AS DOUBLE) / CAST(1 + value * 104729 % 40 AS DOUBLE) AS b,
    CAST(value * 2654435761 % 1000003 AS DOUBLE) / 1000003.0 AS c
    FROM range($rows)" > /dev/null
rows_table=()
# time_query TABLE JOB QUERY: one run of QUERY over TABLE (as t), appended to rows_table; its
# result as CSV in $DIR/out.
time_query() {
    local table=$1 job=$2 query=$3
    /usr/bin/time -f "%e %M %U %S" -o "$DIR/time" "$BIN" sql --format csv --table t="$table" "$query" > "$DIR/out" 2> "$DIR/err" \
        || { cat "$DIR/err" >&2; exit 1; }
    read -r wall kb user sys < "$DIR/time"
    rows_table+=("| $job | $wall s | $(echo "$user + $sys" | bc) s | $((kb / 1024)) MB |")
    echo "$job: $wall s" >&2
}
time_query "$DIR/scores.parquet" "\`count(*), avg(a)\` (the scan alone)" "SELECT count(*), avg(a) FROM t"
time_query "$DIR/scores.parquet" "\`bootstrap_ci(a, 0.95, 1000, 1)\`, LeD-like" "SELECT bootstrap_ci(a, 0.95, 1000, 1) FROM t"
time_query "$DIR/scores.parquet" "\`paired_bootstrap(a, b, 1000, 1)\`, LeD-like" "SELECT paired_bootstrap(a, b, 1000, 1) FROM t"
time_query "$DIR/scores.parquet" "\`approx_randomization(a, b, 10000, 1)\`, LeD-like" "SELECT approx_randomization(a, b, 10000, 1) FROM t"
time_query "$DIR/scores.parquet" "\`bootstrap_ci(c, 0.95, 1000, 1)\`, continuous (1M distinct)" "SELECT bootstrap_ci(c, 0.95, 1000, 1) FROM t"

# Corpus BLEU's tests over rows of BLEU statistics (two systems on the same segments, as
# bleu_stats gives them: lengths, 4 matched counts, 4 totals, a list of non-null Int64): every
# row distinct.
stats='List(non-null Int64)'
stat_rows=${STAT_ROWS:-1000000}
"$BIN" sql --out "$DIR/bleu_stats.parquet" "SELECT value AS segment,
    arrow_cast(make_array(n, r, m1, m1 * 3 / 4, m1 / 2, m1 / 3, n, n - 1, n - 2, n - 3), '$stats') AS a,
    arrow_cast(make_array(n, r, m2, m2 * 3 / 4, m2 / 2, m2 / 3, n, n - 1, n - 2, n - 3), '$stats') AS b
    FROM (SELECT value, 8 + value * 7919 % 40 AS n, 8 + value * 104729 % 40 AS r,
                 (8 + value * 7919 % 40) * (value * 31 % 10) / 10 AS m1,
                 (8 + value * 7919 % 40) * ((value * 31 + 1) % 10) / 10 AS m2
          FROM range($stat_rows))" > /dev/null
time_query "$DIR/bleu_stats.parquet" "\`bleu_paired_bootstrap(segment, a, b, 1000, 1)\`, $stat_rows rows of BLEU statistics" "SELECT bleu_paired_bootstrap(segment, a, b, 1000, 1) FROM t"
sacre_rows=$(( stat_rows < 100000 ? stat_rows : 100000 ))
sacre_query="SELECT r['p_value'], r['b_mean'], r['b_ci'] FROM (SELECT bleu_paired_bs(segment, a, b, 1000, 1) AS r FROM t WHERE segment < $sacre_rows)"
time_query "$DIR/bleu_stats.parquet" "\`bleu_paired_bs(segment, a, b, 1000, 1)\` (sacrebleu's draws), the first $sacre_rows of them" "$sacre_query"
ours=$(tail -1 "$DIR/out")
# sacrebleu's paired bootstrap (its _paired_bs_test, with the statistics given instead of
# extracted from text) on the same rows as the SQL above makes them.
venv=${BENCH_DIR:-/tmp/pm-bench}/sacrebleu/venv
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet sacrebleu==2.6.0; }
cat > "$DIR/peer.py" <<'PY'
import sys
import numpy as np
from sacrebleu.metrics import BLEU
from sacrebleu.significance import _compute_p_value, estimate_ci
rows, resamples, seed = map(int, sys.argv[1:])
v = np.arange(rows, dtype=np.int64)
n, r = 8 + v * 7919 % 40, 8 + v * 104729 % 40
m1, m2 = n * (v * 31 % 10) // 10, n * ((v * 31 + 1) % 10) // 10
def stats(m):
    return np.stack([n, r, m, m * 3 // 4, m // 2, m // 3, n, n - 1, n - 2, n - 3], axis=1)
metric = BLEU()
bl_score = metric._compute_score_from_stats(stats(m1).sum(0).tolist()).score
sys_score = metric._compute_score_from_stats(stats(m2).sum(0).tolist()).score
rng = np.random.default_rng(seed)
idxs = rng.choice(rows, size=(resamples, rows), replace=True)
bl, sy = stats(m1).astype("float32"), stats(m2).astype("float32")
scores_bl = np.array([metric._compute_score_from_stats(s.sum(0)).score for s in bl[idxs]])
scores_sys = np.array([metric._compute_score_from_stats(s.sum(0)).score for s in sy[idxs]])
mean, ci = estimate_ci(scores_sys)
diffs = np.abs(scores_sys - scores_bl)
p = _compute_p_value(diffs - diffs.mean(), abs(bl_score - sys_score))
print(f"{float(p)!r},{float(mean)!r},{float(ci)!r}")
PY
/usr/bin/time -f "%e %M %U %S" -o "$DIR/time" "$venv/bin/python" "$DIR/peer.py" "$sacre_rows" 1000 1 > "$DIR/peer.out"
read -r wall kb user sys < "$DIR/time"
rows_table+=("| sacrebleu 2.6.0's paired bootstrap on the same $sacre_rows rows (its \`_paired_bs_test\`, statistics given) | $wall s | $(echo "$user + $sys" | bc) s | $((kb / 1024)) MB |")
echo "sacrebleu's paired bootstrap: $wall s" >&2
python3 -c "import sys; a, b = ([float(x) for x in s.split(',')] for s in sys.argv[1:]); sys.exit(a != b)" "$ours" "$(cat "$DIR/peer.out")" ||
    { echo "bleu_paired_bs gives $ours, sacrebleu $(cat "$DIR/peer.out")" >&2; exit 1; }

# SYSTEMS systems against a baseline, one GROUP BY over SYSTEMS x SEGMENTS rows, each row a
# system's statistics of a segment beside the baseline's (the table a join of the systems with
# the baseline gives). Written once a size: 200M rows take about 2 minutes.
systems=${SYSTEMS:-20}
segments=${SEGMENTS:-10000000}
wide=$DIR/systems${systems}x${segments}-v2.parquet
[ -f "$wide" ] || "$BIN" sql --out "$wide" "SELECT value / $segments AS system, value % $segments AS segment,
    arrow_cast(make_array(n, r, m1, m1 * 3 / 4, m1 / 2, m1 / 3, n, n - 1, n - 2, n - 3), '$stats') AS a,
    arrow_cast(make_array(n, r, m2, m2 * 3 / 4, m2 / 2, m2 / 3, n, n - 1, n - 2, n - 3), '$stats') AS b
    FROM (SELECT value, 8 + (value % $segments) * 7919 % 40 AS n, 8 + (value % $segments) * 104729 % 40 AS r,
                 (8 + (value % $segments) * 7919 % 40) * ((value % $segments) * 31 % 10) / 10 AS m1,
                 (8 + (value % $segments) * 7919 % 40) * ((value * 31 + value / $segments) % 10) / 10 AS m2
          FROM range($((systems * segments))))" > /dev/null
time_query "$wide" "\`count(*)\` of the $systems systems' table (the scan alone)" \
    "SELECT count(*), sum(array_length(a)), sum(array_length(b)) FROM t"
time_query "$wide" "\`bleu_paired_bootstrap(segment, a, b, 1000, 1) ... GROUP BY system\`, $systems systems x $segments segments" \
    "SELECT system, bleu_paired_bootstrap(segment, a, b, 1000, 1)['p_value'] FROM t GROUP BY system"

distinct=$("$BIN" sql --format csv --table t="$DIR/scores.parquet" "SELECT count(DISTINCT a), count(DISTINCT (a, b)), count(DISTINCT c) FROM t" | tail -1)

section=$DIR/section.md
{
    echo "<!-- significance: made by scripts/bench_significance.sh -->"
    echo "## Significance"
    echo
    echo "$rows rows of one Parquet file, pairmetrics $(git rev-parse --short HEAD), 2 cores, through"
    echo "\`pairmetrics sql\`. Distinct values (a, (a, b), c): $distinct. The state and the"
    echo "resampling scale with distinct rows, not rows."
    echo
    echo "| query | wall | CPU | peak RSS |"
    echo "|---|---|---|---|"
    printf '%s\n' "${rows_table[@]}"
    echo
    echo "The rows from \`bleu_paired_bootstrap\` on test corpus BLEU over rows of BLEU statistics (every row"
    echo "distinct): the streaming test keeps one pair of corpus totals per resample whatever the rows,"
    echo "and costs a Poisson weight and two weighted additions of 10 counts per row and resample,"
    echo "16 resamples and four rows an AVX-512 VNNI instruction (docs/significance.md). sacrebleu's"
    echo "draws hold every row and rows x resamples indices; its own code, on the same $sacre_rows rows,"
    echo "also holds resamples x rows x statistics as float32 (4 GB at 100,000 rows, 40 GB at 1M), and"
    echo "prints the p-value, mean and interval \`bleu_paired_bs\` prints (checked by the script). The"
    echo "last two rows are the issue's scale case: $systems systems against a baseline,"
    echo "$((systems * segments / 1000000))M rows, one GROUP BY."
    echo "<!-- /significance -->"
} > "$section"
python3 scripts/bench_section.py significance "$section"
echo "wrote the Significance section of BENCHMARKS.md" >&2
