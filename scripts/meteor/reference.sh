#!/usr/bin/env bash
# Regenerate tests/data/meteor/ from METEOR 1.5 itself: compiles its aligner from a checkout of
# the public repository cmu-mtlab/meteor (needs a JDK: `apt-get install default-jdk-headless`),
# makes the cases (make_cases.py) and records what its Matcher prints for each, and the stems of
# its bundled Snowball English stemmer for every word of the Europarl sample.
#
# Usage: scripts/meteor/reference.sh METEOR_CHECKOUT EUROPARL_EN
# EUROPARL_EN: the English lines of Europarl v7 fr-en (https://www.statmt.org/europarl/), the
# first 3,000 (europarl-v7.fr-en.head3000.en) for the committed cases.
set -euo pipefail
meteor=${1:?usage: $0 METEOR_CHECKOUT EUROPARL_EN}
europarl=${2:?usage: $0 METEOR_CHECKOUT EUROPARL_EN}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$repo/tests/data/meteor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v javac >/dev/null || { echo "needs a JDK (apt-get install default-jdk-headless)" >&2; exit 1; }

mkdir -p "$work/classes" "$out"
javac -nowarn -encoding UTF-8 -d "$work/classes" "$meteor/src/Matcher.java" \
    "$meteor"/src/edu/cmu/meteor/aligner/*.java "$meteor/src/edu/cmu/meteor/util/Constants.java" \
    "$meteor"/src/org/tartarus/snowball/*.java "$meteor"/src/org/tartarus/snowball/ext/*.java \
    "$here/StemAll.java" 2>&1 | grep -v '^Note:' || true
classpath="$work/classes:$meteor/resources"

python3 "$here/make_cases.py" "$europarl" "$repo/data/meteor/synonym/english.synsets" "$work" 1000
matcher() { java -Xmx2G -cp "$classpath" Matcher "$@"; }
for name in handmade europarl-perturbed europarl-shifted; do
    cp "$work/$name.test" "$work/$name.ref" "$out/"
    matcher "$work/$name.test" "$work/$name.ref" -m 'exact stem synonym' | gzip -9n > "$out/$name.matcher.gz"
done
# The beam at its narrowest, the other objective, the exact module alone.
matcher "$work/europarl-shifted.test" "$work/europarl-shifted.ref" -m 'exact stem synonym' -x 1 | gzip -9n > "$out/europarl-shifted.beam1.matcher.gz"
matcher "$work/europarl-perturbed.test" "$work/europarl-perturbed.ref" -m 'exact stem synonym' -t maxacc | gzip -9n > "$out/europarl-perturbed.maxacc.matcher.gz"
matcher "$work/handmade.test" "$work/handmade.ref" -m 'exact' | gzip -9n > "$out/handmade.exact.matcher.gz"
matcher "$work/handmade.test" "$work/handmade.ref" -m 'synonym stem exact' | gzip -9n > "$out/handmade.reordered.matcher.gz"
cp "$work/paraphrase.test" "$work/paraphrase.ref" "$work/paraphrase.para.gz" "$out/"
matcher "$work/paraphrase.test" "$work/paraphrase.ref" -m 'exact stem synonym paraphrase' -a "$work/paraphrase.para.gz" | gzip -9n > "$out/paraphrase.matcher.gz"
# The tests read the sentence files compressed.
gzip -9nf "$out"/*.test "$out"/*.ref

# Stems of every Europarl word, as in the corpus and lowercased.
tr ' ' '\n' < "$europarl" | grep -v '^$' > "$work/words"
(cat "$work/words"; tr '[:upper:]' '[:lower:]' < "$work/words") | LC_ALL=C sort -u \
    | java -cp "$classpath" StemAll | gzip -9n > "$out/europarl-stems.tsv.gz"
echo "wrote $out"
