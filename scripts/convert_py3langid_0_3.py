"""py3langid 0.3.0's model (`py3langid/data/model.plzma`, a pickle compressed with lzma) as
numpy arrays in an xz-compressed `.npz`, the format pairmetrics reads: the same numbers, nothing
recomputed. OpusFilter 3.3.1 calls `LanguageIdentifier.from_pickled_model`, which py3langid 0.4.0
no longer has, so its language-ID filters run on this model.

    python -m venv v && v/bin/pip install py3langid==0.3.0 numpy
    v/bin/python scripts/convert_py3langid_0_3.py crates/kernels/data/py3langid-0.3.0/model.npz.xz

Arrays: ptc (float32, features x classes), pc (float32), classes (<U), nextmove (uint16,
states x 256), and the features each state completes as out_start (uint32, states + 1) and
out_feat (uint16), in the pickle's tuple order.
"""
import io
import lzma
import pickle
import sys
from importlib import resources

import numpy as np

model = resources.files("py3langid") / "data" / "model.plzma"
with lzma.open(model) as f:
    ptc, pc, classes, nextmove, output = pickle.load(f)
assert ptc.typecode == "f" and pc.typecode == "f" and nextmove.typecode == "H"
states = len(nextmove) // 256
starts, features = [0], []
for state in range(states):
    features.extend(output.get(state, ()))
    starts.append(len(features))
assert set(output) <= set(range(states))
buffer = io.BytesIO()
np.savez(
    buffer,
    ptc=np.array(ptc, dtype=np.float32).reshape(-1, len(pc)),
    pc=np.array(pc, dtype=np.float32),
    classes=np.array(classes),
    nextmove=np.array(nextmove, dtype=np.uint16),
    out_start=np.array(starts, dtype=np.uint32),
    out_feat=np.array(features, dtype=np.uint16),
)
with open(sys.argv[1], "wb") as f:
    f.write(lzma.compress(buffer.getvalue(), preset=9 | lzma.PRESET_EXTREME))
