#!/usr/bin/env bash
# Object stores against local disk: `score` LeD+PoD on a generated corpus, from and to a real S3
# server (SeaweedFS on loopback, installed by scripts/storage/seaweedfs.sh) and from and to
# local files, interleaved, the median of REPEAT runs each. Writes the "Object stores" section
# of BENCHMARKS.md.
#
#   scripts/bench_storage.sh                    # 1M pairs (release build)
#   BENCH_SIZES=100000 scripts/bench_storage.sh # a quick run
#   BIN=target/debug/pairmetrics scripts/bench_storage.sh  # without a release build (not for the record)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${BENCH_SIZES:-1000000}
DIR=${BENCH_DIR:-/tmp/pm-bench}/storage
REPEAT=${BENCH_REPEAT:-3}
mkdir -p "$DIR"
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet --bin pairmetrics --example generate_corpus
    BIN=target/release/pairmetrics
    GEN=target/release/examples/generate_corpus
else
    GEN=$(dirname "$BIN")/examples/generate_corpus
fi
weed=$(scripts/storage/seaweedfs.sh)
c=$DIR/c$N
[ -f "$c/alignments.parquet" ] || "$GEN" "$N" "$c" >&2

# The server: every port its own, data in DIR, killed on exit.
ports=($(python3 -c 'import socket
s=[socket.socket() for _ in range(11)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])'))
rm -rf "$DIR/weed" && mkdir -p "$DIR/weed"
cat > "$DIR/s3.json" <<JSON
{"identities":[{"name":"bench","credentials":[{"accessKey":"bench","secretKey":"benchsecret"}],"actions":["Admin","Read","Write","List"]}]}
JSON
"$weed" mini -dir="$DIR/weed" -ip=127.0.0.1 -ip.bind=127.0.0.1 -s3.config="$DIR/s3.json" -bucket=bench \
    -s3.port.iceberg=0 -s3.port.lance=0 -admin.ui=false -webdav=false \
    -s3.port=${ports[0]} -s3.port.grpc=${ports[1]} -master.port=${ports[2]} -master.port.grpc=${ports[3]} \
    -volume.port=${ports[4]} -volume.port.grpc=${ports[5]} -filer.port=${ports[6]} -filer.port.grpc=${ports[7]} \
    -admin.port=${ports[8]} -admin.port.grpc=${ports[9]} -webdav.port=${ports[10]} > "$DIR/weed.log" 2>&1 &
weed_pid=$!
trap 'kill $weed_pid 2>/dev/null; wait $weed_pid 2>/dev/null' EXIT
export AWS_ENDPOINT_URL=http://127.0.0.1:${ports[0]} AWS_ALLOW_HTTP=true AWS_ACCESS_KEY_ID=bench \
    AWS_SECRET_ACCESS_KEY=benchsecret AWS_REGION=us-east-1
for _ in $(seq 120); do
    "$BIN" sql --table t=s3://bench/ "SELECT 1" 2>&1 | grep -q "no \*.parquet objects" && break
    sleep 0.5
done
for table in pairs alignments; do
    "$BIN" sql --table "t=$c/$table.parquet" --out "s3://bench/c$N/$table.parquet" "SELECT * FROM t" 2>/dev/null
done

results=$DIR/results.tsv
: > "$results"
measure() {
    local job=$1; shift
    /usr/bin/time -f "%e %M" -o "$DIR/time" "$@" > /dev/null 2> "$DIR/stderr" || { cat "$DIR/stderr" >&2; exit 1; }
    read -r seconds kb < "$DIR/time"
    printf '%s\t%s\t%s\n' "$job" "$seconds" "$kb" >> "$results"
    printf '%-24s %8.2f s %8d MB\n' "$job" "$seconds" $((kb / 1024)) >&2
}
for _ in $(seq "$REPEAT"); do
    measure "local disk" "$BIN" score --pairs "$c/pairs.parquet" --alignments "$c/alignments.parquet" --out "$DIR/scored.parquet"
    measure "S3 to S3" "$BIN" score --pairs "s3://bench/c$N/pairs.parquet" --alignments "s3://bench/c$N/alignments.parquet" \
        --out "s3://bench/c$N/scored.parquet"
done

section=$DIR/section.md
python3 - "$results" "$N" "$BIN" > "$section" <<'PY'
import statistics, sys
from collections import defaultdict
rows = defaultdict(list)
for line in open(sys.argv[1]):
    job, seconds, kb = line.split("\t")
    rows[job].append((float(seconds), int(kb)))
n, binary = int(sys.argv[2]), sys.argv[3]
local = statistics.median(s for s, _ in rows["local disk"])
print("<!-- storage: scripts/bench_storage.sh -->")
print("## Object stores\n")
print(f"`score` LeD+PoD on {n:,} generated pairs ({binary}), local files against a SeaweedFS S3 server")
print("on loopback (inputs read from it, output uploaded to it); median of the runs, peak RSS the largest.\n")
print("| job | seconds (median) | range | peak RSS MB | vs local disk |")
print("|---|---:|---:|---:|---:|")
for job, runs in rows.items():
    times = [s for s, _ in runs]
    med = statistics.median(times)
    print(f"| {job} | {med:.2f} | {min(times):.2f}-{max(times):.2f} | {max(k for _, k in runs) // 1024} | {med / local:.2f}x |")
print("\n<!-- /storage -->")
PY
cat "$section"
python3 scripts/bench_section.py storage "$section"
