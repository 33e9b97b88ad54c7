#!/usr/bin/env python3
"""XTC files through MDAnalysis (an XTC reader and writer independent of Faraday's).

  tools/xtc_check.py dump FILE.xtc OUT.txt     every frame of FILE.xtc as text
  tools/xtc_check.py write IN.txt FILE.xtc     the frames of IN.txt written as FILE.xtc

The text, one frame after another (nm, ps; floats written with 9 significant digits,
which reproduce a float32 exactly):

  frame STEP TIME PRECISION NATOMS
  box B00 B01 B02 B10 B11 B12 B20 B21 B22
  X Y Z                                          (NATOMS lines)

Exits 77 when MDAnalysis cannot be imported (the tests skip then), 1 on any other failure.
"""
import sys

try:
    import numpy as np
    from MDAnalysis.lib.formats.libmdaxdr import XTCFile
except ImportError as error:  # the tests skip with this message
    print(f"MDAnalysis is not importable ({error}); pip install MDAnalysis", file=sys.stderr)
    sys.exit(77)


def number(value):
    return f"{float(value):.9g}"


def dump(xtc, out):
    with XTCFile(xtc) as f, open(out, "w") as text:
        for frame in f:
            xyz = np.asarray(frame.x, dtype=np.float32)
            text.write(f"frame {frame.step} {number(frame.time)} {number(frame.prec)} {len(xyz)}\n")
            text.write("box " + " ".join(number(b) for b in np.asarray(frame.box, dtype=np.float32).ravel()) + "\n")
            for r in xyz:
                text.write(" ".join(number(c) for c in r) + "\n")


def read_frames(path):
    """(step, time, precision, box 3x3, xyz N x 3) for every frame of the text at `path`."""
    with open(path) as text:
        lines = [line.split() for line in text if line.strip()]
    frames, at = [], 0
    while at < len(lines):
        head = lines[at]
        if head[0] != "frame" or len(head) != 5:
            sys.exit(f"{path}:{at + 1}: expected 'frame STEP TIME PRECISION NATOMS'")
        step, time, precision, natoms = int(head[1]), float(head[2]), float(head[3]), int(head[4])
        box = np.array([float(b) for b in lines[at + 1][1:]], dtype=np.float32).reshape(3, 3)
        xyz = np.array([[float(c) for c in line] for line in lines[at + 2 : at + 2 + natoms]], dtype=np.float32)
        if xyz.shape != (natoms, 3):
            sys.exit(f"{path}:{at + 3}: expected {natoms} lines of 3 coordinates")
        frames.append((step, time, precision, box, xyz))
        at += 2 + natoms
    return frames


def write(text, xtc):
    with XTCFile(xtc, "w") as f:
        for step, time, precision, box, xyz in read_frames(text):
            f.write(xyz, box, step, time, precision)


def main(argv):
    if len(argv) != 4 or argv[1] not in ("dump", "write"):
        print(__doc__, file=sys.stderr)
        return 1
    (dump if argv[1] == "dump" else write)(argv[2], argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
