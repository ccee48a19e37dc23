#!/usr/bin/env python3
"""Put a marked section into BENCHMARKS.md: replace the one between `<!-- NAME` and
`<!-- /NAME -->`, or append it.

    scripts/bench_section.py NAME SECTION_FILE
"""
import re
import sys

name, section_file = sys.argv[1], sys.argv[2]
section = open(section_file).read()
text = open("BENCHMARKS.md").read()
pattern = re.compile(rf"<!-- {re.escape(name)}\b.*?<!-- /{re.escape(name)} -->\n", re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
open("BENCHMARKS.md", "w").write(text)
