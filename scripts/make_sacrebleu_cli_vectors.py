#!/usr/bin/env python3
"""Write tests/vectors/sacrebleu_cli/cases.json: what sacrebleu 2.6.0's command line prints on
tests/data/wmt23 for a range of command lines, for `pairmetrics sacrebleu` to print byte for byte
(tests/sacrebleu_cli.rs).

Run with the Python that has sacrebleu 2.6.0 (and numpy 2) installed:
    python3 -m venv /tmp/sbenv && /tmp/sbenv/bin/pip install sacrebleu==2.6.0
    /tmp/sbenv/bin/python scripts/make_sacrebleu_cli_vectors.py

sacrebleu's JSON of a paired test crashes on numpy float32 values (`TypeError: Object of type
float32 is not JSON serializable`); here json's fallback turns them into Python floats, which is
what its code prints once they are serialisable.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests/data/wmt23"

RUNNER = """
import json, sys
json.JSONEncoder.default = lambda self, o: float(o)
from sacrebleu.sacrebleu import main
sys.argv = ['sacrebleu'] + sys.argv[1:]
main()
"""

A, B = "he-en.ref.refA.en", "he-en.ref.refB.en"
GPT4, ONLINE_A = "he-en.hyp.GPT4-5shot.en", "he-en.hyp.ONLINE-A.en"
SYSTEMS = [GPT4, ONLINE_A] + [f"he-en.hyp.{s}.en" for s in
                              ["GTCOM_Peter", "Lan-BridgeMT", "NLLB_Greedy", "NLLB_MBR_BLEU", "ONLINE-B", "ONLINE-G", "ONLINE-Y", "UvA-LTL"]]
ALL = ["-m", "bleu", "chrf", "ter"]

CASES = [
    ([A, "-i", GPT4] + ALL, {}),
    ([A, "-i", GPT4] + ALL + ["-f", "text"], {}),
    ([A, B, "-i", GPT4] + ALL + ["-f", "text", "--short", "-w", "3"], {}),
    ([A, B, "-i", GPT4] + ALL + ["-b"], {}),
    ([A, "-i", GPT4] + ALL + ["-b", "-f", "text"], {}),
    ([A, "-i", GPT4] + ALL + ["--confidence"], {}),
    ([A, B, "-i", ONLINE_A, "-m", "chrf", "ter", "--chrf-word-order", "2", "-ci", "-cin", "500", "-f", "text"], {}),
    ([A, "-i", GPT4, "-m", "bleu", "chrf", "--confidence", "-f", "text", "-w", "4"], {"SACREBLEU_SEED": "7"}),
    (["de-en.ref.refA.en", "-i", "de-en.hyp.ONLINE-B.en", "de-en.hyp.NLLB_Greedy.en"] + ALL, {}),
    ([A, B, "-i"] + SYSTEMS + ALL + ["-f", "text"], {}),
    ([A, "-i"] + SYSTEMS + ALL + ["-f", "latex", "-w", "2"], {}),
    ([A, B, "-i"] + SYSTEMS + ALL + ["--paired-bs"], {}),
    ([A, "-i"] + SYSTEMS + ["-m", "chrf", "bleu", "ter", "--chrf-word-order", "2", "--paired-bs", "-f", "text"], {}),
    ([A, B, "-i"] + SYSTEMS[:4] + ALL + ["-pbs", "-pbsn", "300", "-f", "latex"], {"SACREBLEU_SEED": "2024"}),
    ([A, B, "-i"] + SYSTEMS[:5] + ["-m", "ter", "bleu", "--paired-ar", "--paired-ar-n", "1000", "-f", "text"], {}),
    ([A, "-i", GPT4, ONLINE_A, "--paired-ar", "-f", "text"], {}),
    ([A, "-i", GPT4, ONLINE_A, "-m", "chrf", "--paired-ar", "-parn", "500"], {}),
    ([A, "-i", GPT4, "-m", "bleu", "-sl", "-f", "text"], {}),
    ([A, B, "-i", ONLINE_A, "-m", "chrf", "-cw", "2", "--sentence-level", "-w", "4"], {}),
    ([A, "-i", GPT4, "-m", "ter", "-sl", "--short"], {}),
    ([A, "-i", GPT4, "-m", "bleu", "-sl", "-b", "-w", "3"], {}),
    ([A, "-i", GPT4, ONLINE_A, "-m", "bleu", "-tok", "char", "-lc"], {}),
    ([A, "-i", GPT4, "-m", "bleu", "--tokenize", "none", "-s", "floor", "-sv", "0.2", "-f", "text"], {}),
    ([A, "-i", GPT4, "-m", "bleu", "-s", "add-k", "-f", "text", "--confidence"], {}),
    ([A, "-i", GPT4, "-m", "bleu", "-s", "none", "-sl", "-f", "text"], {}),
    ([A, "-i", GPT4, "-m", "chrf", "--chrf-lowercase", "--chrf-whitespace", "--chrf-eps-smoothing", "-f", "text", "--confidence"], {}),
    ([A, "-i", GPT4, ONLINE_A, "-m", "chrf", "-cc", "4", "-cw", "1", "--chrf-beta", "1", "-pbs", "-f", "text"], {}),
    ([A, "-i", GPT4, "-m", "ter", "--ter-normalized", "--ter-no-punct", "--ter-case-sensitive", "-f", "text"], {}),
    ([A, "-i", ONLINE_A, "-m", "ter", "--ter-asian-support", "--ter-normalized", "--confidence"], {}),
    ([A, "-i", GPT4, ONLINE_A] + ALL, {"SACREBLEU_FORMAT": "latex"}),
    ([A, "-i", GPT4, "-m", "bleu", "-tok", "intl", "-sl", "-w", "6"], {}),
    (["en-de.ref.refA.de", "-i", "en-de.hyp.ONLINE-W.de", "-m", "bleu", "-tok", "intl", "-sl", "-w", "6"], {}),
    (["en-zh.ref.refA.zh", "-i", "en-zh.hyp.GPT4-5shot.zh", "-m", "bleu", "-tok", "zh", "-sl", "-w", "6"], {}),
    (["en-zh.ref.refA.zh", "-i", "en-zh.hyp.GPT4-5shot.zh", "en-zh.hyp.ONLINE-A.zh", "-m", "bleu", "-tok", "zh", "--paired-bs", "-f", "text"], {}),
    (["en-zh.ref.refA.zh", "-i", "en-zh.hyp.ONLINE-A.zh", "-m", "bleu", "chrf", "-tok", "intl", "-f", "text", "-w", "4"], {}),
]


def run(args, env):
    full_env = dict(os.environ, NO_COLOR="1", **env)
    done = subprocess.run([sys.executable, "-c", RUNNER] + args, cwd=DATA, env=full_env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"sacrebleu {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


import sacrebleu  # noqa: E402
import numpy  # noqa: E402

cases = []
for args, env in CASES:
    cases.append({"args": args, "env": env, "stdout": run(args, env)})
    print(f"{len(cases)}/{len(CASES)}", file=sys.stderr)

out = ROOT / "tests/vectors/sacrebleu_cli/cases.json"
out.write_text(json.dumps({"sacrebleu": sacrebleu.__version__, "numpy": numpy.__version__, "cases": cases},
                          indent=1, ensure_ascii=False) + "\n")
print(f"wrote {out}", file=sys.stderr)
