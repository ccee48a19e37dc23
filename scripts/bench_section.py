#!/usr/bin/env python3
"""Put a marked section into BENCHMARKS.md (or DOC): replace the one between `<!-- NAME` and
`<!-- /NAME -->`, or append it.

    scripts/bench_section.py NAME SECTION_FILE [DOC]
"""
import re
import sys

name, section_file = sys.argv[1], sys.argv[2]
doc = sys.argv[3] if len(sys.argv) > 3 else "BENCHMARKS.md"
section = open(section_file).read()
text = open(doc).read()
pattern = re.compile(rf"<!-- {re.escape(name)}\b.*?<!-- /{re.escape(name)} -->\n", re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
open(doc, "w").write(text)
