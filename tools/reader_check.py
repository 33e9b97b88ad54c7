#!/usr/bin/env python3
"""Faraday's DCD trajectories and potential maps through other programs' readers.

  tools/reader_check.py dcd FILE.dcd OUT.txt    MDAnalysis's DCDReader: per frame
      frame INDEX
      dimensions A B C ALPHA BETA GAMMA          (Angstrom, degrees, as MDAnalysis gives them)
      vectors AX AY AZ BX BY BZ CX CY CZ          (mdamath.triclinic_vectors, Angstrom)
      X Y Z                                       (one line per atom, Angstrom)
  tools/reader_check.py dx FILE.dx OUT.txt      GridDataFormats (gridData.OpenDX and Grid):
      counts NX NY NZ
      origin X Y Z
      delta D00 D01 D02 D10 D11 D12 D20 D21 D22   (Angstrom: the three delta lines)
      V                                           (Grid(FILE).grid, index (i, j, k), x fastest)
  tools/reader_check.py mrc FILE.mrc OUT.txt    mrcfile (opened strictly, then validated):
      counts NX NY NZ
      cell A B C ALPHA BETA GAMMA                 (header cella, cellb)
      origin X Y Z
      axes MAPC MAPR MAPS
      valid 1|0
      V                                           (data[k, j, i], x fastest)

Floats are written with 9 significant digits (exact for float32). Exits 77 when the reader
cannot be imported (the tests skip then), 1 on any other failure.
"""
import importlib
import sys


def modules(names, package):
    """The modules `names`, or None after saying on stderr that `package` is missing."""
    try:
        return [importlib.import_module(name) for name in names]
    except ImportError as error:
        print(f"{package} is not importable ({error}); pip install {package}", file=sys.stderr)
        return None


def number(value):
    return f"{float(value):.9g}"


def numbers(values):
    return " ".join(number(v) for v in values)


def dcd(path, out):
    found = modules(["numpy", "MDAnalysis.coordinates.DCD", "MDAnalysis.lib.mdamath"], "MDAnalysis")
    if found is None:
        return 77
    np, formats, mdamath = found
    reader = formats.DCDReader(path)
    with open(out, "w") as text:
        for ts in reader:
            text.write(f"frame {ts.frame}\n")
            text.write("dimensions " + numbers(ts.dimensions) + "\n")
            text.write("vectors " + numbers(np.asarray(mdamath.triclinic_vectors(ts.dimensions)).ravel()) + "\n")
            for r in ts.positions:
                text.write(numbers(r) + "\n")
    return 0


def dx(path, out):
    found = modules(["numpy", "gridData"], "GridDataFormats")
    if found is None:
        return 77
    np, gridData = found
    field = gridData.OpenDX.field("density")
    field.read(path)
    positions = field.components["positions"]
    grid = gridData.Grid(path).grid
    with open(out, "w") as text:
        text.write("counts " + " ".join(str(int(n)) for n in positions.shape) + "\n")
        text.write("origin " + numbers(positions.origin) + "\n")
        text.write("delta " + numbers(np.asarray(positions.delta).ravel()) + "\n")
        for v in np.asarray(grid).transpose(2, 1, 0).ravel():
            text.write(number(v) + "\n")
    return 0


def mrc(path, out):
    found = modules(["numpy", "mrcfile"], "mrcfile")
    if found is None:
        return 77
    np, mrcfile = found
    valid = mrcfile.validate(path, print_file=open("/dev/null", "w"))
    with mrcfile.open(path, permissive=False) as m:
        h = m.header
        with open(out, "w") as text:
            text.write(f"counts {int(h.nx)} {int(h.ny)} {int(h.nz)}\n")
            text.write("cell " + numbers([h.cella.x, h.cella.y, h.cella.z, h.cellb.alpha, h.cellb.beta, h.cellb.gamma]) + "\n")
            text.write("origin " + numbers([h.origin.x, h.origin.y, h.origin.z]) + "\n")
            text.write(f"axes {int(h.mapc)} {int(h.mapr)} {int(h.maps)}\n")
            text.write(f"valid {1 if valid else 0}\n")
            for v in np.asarray(m.data).ravel():
                text.write(number(v) + "\n")
    return 0


def main(argv):
    commands = {"dcd": dcd, "dx": dx, "mrc": mrc}
    if len(argv) != 4 or argv[1] not in commands:
        print(__doc__, file=sys.stderr)
        return 1
    return commands[argv[1]](argv[2], argv[3])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
