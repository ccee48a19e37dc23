#!/usr/bin/env bash
# Do the lake engines read what pairmetrics writes? Makes every kind of table pairmetrics writes
# from the bundled data (score with every column family, sql results of every function family,
# aggregates, each importer, align-words, extract, pivot, triples, dedup, a Hive-partitioned
# dataset whose values need escaping, Delta tables), then reads each with Spark 4 (pyspark,
# local mode, the machine's Java 17 or later), DuckDB and Polars and compares every value with
# pyarrow's reading (scripts/lake_readers.py). Writes the generated section of
# docs/guide/data-lake.md.
#
#   scripts/lake_readers.sh
#
# Installs pinned pyspark, duckdb, polars, pyarrow and deltalake into target/lake-venv (about
# 450 MB from PyPI; LAKE_VENV names another). Not part of CI (Java, and Spark's size).
# BIN (default target/release/pairmetrics, built if missing) and DIR (default
# /tmp/pm-bench/lake) may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DIR:-/tmp/pm-bench/lake}/outputs
BIN=${BIN:-target/release/pairmetrics}
venv=${LAKE_VENV:-target/lake-venv}
command -v java > /dev/null || { echo "Spark needs Java 17 or later (Debian: apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
[ -x "$BIN" ] || cargo build --release --quiet --bin pairmetrics
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    pyspark==4.0.1 duckdb==2.0.1 polars==2.2.0 pyarrow==26.0.1 deltalake==1.6.6
rm -rf "$DIR"
mkdir -p "$DIR/in"
manifest=$DIR/manifest.tsv
: > "$manifest"
made() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$manifest"; }
pm() { "$BIN" "$@" > /dev/null 2>> "$DIR/stderr" || { cat "$DIR/stderr" >&2; echo "failed: pairmetrics $*" >&2; exit 1; }; }
E=data/europarl-sample
M=tests/data/meteor

# The inputs the importers take, from the bundled data.
cat > "$DIR/in/filters.yaml" <<'YAML'
- LengthFilter: {unit: word, min_length: 1, max_length: 80}
- LengthRatioFilter: {unit: char, threshold: 2}
- LongWordFilter: {threshold: 40}
- CharacterScoreFilter: {scripts: [Latin, Latin]}
- LangidFilter: {languages: [fr, en]}
YAML
cat > "$DIR/in/fr.conllu" <<'CONLLU'
# text = Le chat dort .
1	Le	le	DET	_	_	2	det	_	_
2	chat	chat	NOUN	_	_	3	nsubj	_	_
3	dort	dormir	VERB	_	_	0	root	_	_
4	.	.	PUNCT	_	_	3	punct	_	_

CONLLU
cat > "$DIR/in/en.conllu" <<'CONLLU'
# text = The cat sleeps .
1	The	the	DET	_	_	2	det	_	_
2	cat	cat	NOUN	_	_	3	nsubj	_	_
3	sleeps	sleep	VERB	_	_	0	root	_	_
4	.	.	PUNCT	_	_	3	punct	_	_

CONLLU
printf 'le chat\tthe cat\t0.75\nle chat\tthe tomcat\t0.25\ndort\tsleeps\n' > "$DIR/in/dictionary.tsv"
printf '0-0 1-1 2-2\n0-0 1-2 2-1\n\n0-0\n' > "$DIR/in/links.pharaoh"

# Importers.
pm import text --src <(zcat $M/europarl-perturbed.test.gz) --tgt <(zcat $M/europarl-perturbed.ref.gz) --out "$DIR/import-text.parquet"
made import-text file "$DIR/import-text.parquet" "import text"
pm import meteor --alignments $M/europarl-perturbed.matcher.gz --out "$DIR/import-meteor.parquet"
made import-meteor file "$DIR/import-meteor.parquet" "import meteor"
pm import pharaoh --alignments "$DIR/in/links.pharaoh" --out "$DIR/import-pharaoh.parquet"
made import-pharaoh file "$DIR/import-pharaoh.parquet" "import pharaoh"
pm import conllu --src "$DIR/in/fr.conllu" --tgt "$DIR/in/en.conllu" --out "$DIR/import-conllu.parquet"
made import-conllu file "$DIR/import-conllu.parquet" "import conllu"
pm import moses-phrase-table --table data/chevelu-example/phrase-table --out "$DIR/import-phrase-table.parquet"
made import-phrase-table file "$DIR/import-phrase-table.parquet" "import moses-phrase-table"
pm import moses-nbest --nbest data/chevelu-example/nbest.txt --out "$DIR/import-nbest.parquet"
made import-nbest file "$DIR/import-nbest.parquet" "import moses-nbest"
pm import semeval2014t5 tests/data/semeval2014t5/en-de.trial.xml.gz --out "$DIR/import-semeval.parquet"
made import-semeval file "$DIR/import-semeval.parquet" "import semeval2014t5"
pm import dictionary "$DIR/in/dictionary.tsv" --out "$DIR/import-dictionary.parquet"
made import-dictionary file "$DIR/import-dictionary.parquet" "import dictionary"

# Tables made from tables.
pm score --pairs $E/pairs.parquet --alignments $E/alignments.parquet --arcs $E/arcs.parquet \
    --lid langid --hardrules fr-en --filters "$DIR/in/filters.yaml" --out "$DIR/score.parquet"
made score file "$DIR/score.parquet" "score (LePoD, DERP, langid, hard rules, OpusFilter filters)"
pm align-words --pairs $E/pairs.parquet --out "$DIR/align-words.parquet"
made align-words file "$DIR/align-words.parquet" "align-words"
pm extract --pairs $E/pairs.parquet --alignments "$DIR/align-words.parquet" --out "$DIR/extract.parquet"
made extract file "$DIR/extract.parquet" "extract"
pm pivot --table "$DIR/extract.parquet" --out "$DIR/pivot.parquet"
made pivot file "$DIR/pivot.parquet" "pivot"
pm triples --pairs $E/pairs.parquet --arcs $E/arcs.parquet --out "$DIR/triples.parquet"
made triples file "$DIR/triples.parquet" "triples"
pm dedup --exact either $E/pairs.parquet "$DIR/dedup.parquet"
made dedup file "$DIR/dedup.parquet" "dedup"

# SQL results: a column of every function family's type, and aggregates.
pm sql --table p=$E/pairs.parquet --out "$DIR/sql-functions.parquet" "
SELECT pair_id,
       led(src, tgt) AS led,
       tokenize(array_to_string(src, ' ')) AS tokens,
       langid(array_to_string(src, ' ')) AS langid,
       lingua_lid(array_to_string(tgt, ' ')) AS lingua,
       hardrules(array_to_string(src, ' '), array_to_string(tgt, ' '), 'fr', 'en') AS hardrules,
       segment_length(array_to_string(src, ' '), 'word') AS words,
       has_html_tag(array_to_string(src, ' ')) AS html,
       minhash(src, 16, 1) AS minhash32,
       minhash(src, 16, 1, 'affine64') AS minhash64,
       lsh_bands(minhash(src, 16, 1), 4, 4) AS bands,
       pair_hash(array_to_string(src, ' '), array_to_string(tgt, ' ')) AS pair_hash,
       jaccard(src, tgt) AS jaccard,
       sentence_bleu(array_to_string(tgt, ' '), array_to_string(src, ' ')) AS bleu,
       chrf_stats(array_to_string(tgt, ' '), array_to_string(src, ' ')) AS chrf_stats
FROM p"
made sql-functions file "$DIR/sql-functions.parquet" "sql: scalar functions"
pm sql --table s="$DIR/score.parquet" --out "$DIR/sql-aggregates.parquet" "
SELECT count(*) AS pairs, bootstrap_ci(led, 0.95, 1000, 1) AS led_ci,
       sum(CAST(pair_id AS BIGINT UNSIGNED)) AS unsigned_sum
FROM s"
made sql-aggregates file "$DIR/sql-aggregates.parquet" "sql: aggregates"

# Datasets: Hive partitions whose values need escaping, part files of at most 400 rows.
pm sql --table s="$DIR/score.parquet" --partition-by bucket,kept --max-rows-per-file 400 --out "$DIR/dataset/" "
SELECT pair_id, src, tgt, led, pod, hardrules,
       CASE pair_id % 4 WHEN 0 THEN '03' WHEN 1 THEN 'a b/c' WHEN 2 THEN 'x=y%' ELSE 'été' END AS bucket,
       CAST(keep AS VARCHAR) AS kept
FROM s"
made dataset dataset "$DIR/dataset" "sql --partition-by --max-rows-per-file"
pm score --pairs $E/pairs.parquet --alignments $E/alignments.parquet --out "$DIR/score-dataset/" --max-rows-per-file 1000
made score-dataset dataset "$DIR/score-dataset" "score into a dataset"

# Delta tables: written, then appended to.
pm score --pairs $E/pairs.parquet --alignments $E/alignments.parquet --out "delta:$DIR/delta-score"
made delta-score delta "$DIR/delta-score" "score into Delta"
pm sql --table p=$E/pairs.parquet --out "delta:$DIR/delta-sql" "SELECT pair_id, src, minhash(src, 8, 1) AS sig FROM p WHERE pair_id < 1000"
pm sql --table p=$E/pairs.parquet --mode append --out "delta:$DIR/delta-sql" "SELECT pair_id, src, minhash(src, 8, 1) AS sig FROM p WHERE pair_id >= 1000"
made delta-sql delta "$DIR/delta-sql" "sql into Delta, then --mode append"

section=$DIR/section.md
"$venv/bin/python" scripts/lake_readers.py "$manifest" "$(git rev-parse --short HEAD)" > "$section" || status=$?
python3 scripts/bench_section.py lake "$section" docs/guide/data-lake.md
cat "$section"
exit "${status:-0}"
