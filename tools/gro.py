"""GROMACS .gro coordinates for the builders in tools/: one writer, one reader, and the random
placement of points at a minimum distance that the liquid builders share.

.gro layout (fixed columns): a title line, the atom count, one line per atom
  "%5d%-5s%5s%5d" residue number, residue name, atom name, atom number (numbers mod 100000),
  then x y z in nm with `decimals` decimals in fields `decimals + 5` wide, and optionally
  vx vy vz in nm/ps with one decimal more in fields of the same width,
and a last line with the box in nm, at least 5 decimals in fields at least 10 wide: three
numbers (a rectangular box's edges) or nine, the box vectors a, b, c in GROMACS' order
  a_x b_y c_z a_y a_z b_x b_z c_x c_y
(a_y = a_z = b_z = 0 in the reduced form GROMACS writes). GROMACS reads any number of decimals
as long as every coordinate field has the same width; it finds the width from the distance
between the decimal points.
"""


def write_gro(path, title, atoms, positions, box, velocities=None, decimals=3):
    """Writes a .gro file.

    atoms: one (residue number, residue name, atom name) per atom (atom numbers are 1, 2, ...);
    positions (and velocities): N rows of three numbers, nm (nm/ps);
    box: one edge (a cube), three edges or the three box vectors (3 x 3, rows a, b, c), nm; a
    box with off-diagonal elements is written with nine numbers.
    """
    numbers = box_line_numbers(box)
    width = decimals + 5
    xfmt = f"%{width}.{decimals}f" * 3
    vfmt = f"%{width}.{decimals + 1}f" * 3
    bdec = max(5, decimals)
    bfmt = f"%{max(10, bdec + 5)}.{bdec}f" * len(numbers)
    lines = [title, "%5d" % len(positions)]
    for n, ((resnr, resname, name), x) in enumerate(zip(atoms, positions), start=1):
        line = "%5d%-5s%5s%5d" % (resnr % 100000, resname, name, n % 100000) + xfmt % tuple(x)
        if velocities is not None:
            line += vfmt % tuple(velocities[n - 1])
        lines.append(line)
    lines.append(bfmt % tuple(numbers))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def box_line_numbers(box):
    """The numbers of a .gro box line for a box given as one edge, three edges or 3 x 3 vectors."""
    if isinstance(box, (int, float)):
        return [float(box)] * 3
    rows = list(box)
    if not hasattr(rows[0], "__len__"):
        return [float(v) for v in rows]
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = [[float(v) for v in row] for row in rows]
    if not any((ay, az, bx, bz, cx, cy)):
        return [ax, by, cz]
    return [ax, by, cz, ay, az, bx, bz, cx, cy]


def box_vectors(numbers):
    """The box vectors (rows a, b, c) of a .gro or .g96 box line's three or nine numbers."""
    if len(numbers) == 3:
        return [[numbers[0], 0.0, 0.0], [0.0, numbers[1], 0.0], [0.0, 0.0, numbers[2]]]
    if len(numbers) != 9:
        raise ValueError(f"a box line has 3 or 9 numbers, not {len(numbers)}")
    ax, by, cz, ay, az, bx, bz, cx, cy = numbers
    return [[ax, ay, az], [bx, by, bz], [cx, cy, cz]]


def read_gro(path, vectors=False):
    """Reads a .gro file: (title, atoms [(resnr, resname, name)], positions [[x, y, z]], box).

    The box is its three edges (a rectangular box only: nine box numbers with non-zero
    off-diagonals are an error) or, with vectors=True, the box vectors [a, b, c] of any box."""
    with open(path) as f:
        lines = f.read().splitlines()
    title = lines[0]
    n = int(lines[1])
    atoms, positions = [], []
    first = lines[2] if n > 0 else ""
    # Field width from the distance between the first two decimal points of the coordinates.
    dot = first.index(".", 20) if n > 0 else 0
    width = first.index(".", dot + 1) - dot if n > 0 else 8
    for line in lines[2:2 + n]:
        atoms.append((int(line[0:5]), line[5:10].strip(), line[10:15].strip()))
        positions.append([float(line[20 + k * width:20 + (k + 1) * width]) for k in range(3)])
    numbers = [float(v) for v in lines[2 + n].split()]
    if vectors:
        return title, atoms, positions, box_vectors(numbers)
    if len(numbers) == 9 and any(numbers[3:]):
        raise ValueError(f"{path}: triclinic box (read it with vectors=True)")
    return title, atoms, positions, numbers[:3]


def random_points(n, box, min_distance, rng, max_attempts):
    """n points at random in a cube of edge `box` nm, no two closer than `min_distance` nm
    (periodic), by rejection against a cell list of cells at least min_distance wide.

    Each attempt draws x, y, z from rng.random() in that order, so a seed gives one result.
    Returns None when max_attempts draws did not place all points."""
    cells = max(1, int(box // min_distance))
    size = box / cells
    grid = {}
    points = []
    attempts = 0
    limit2 = min_distance * min_distance
    while len(points) < n:
        attempts += 1
        if attempts > max_attempts:
            return None
        p = (rng.random() * box, rng.random() * box, rng.random() * box)
        c = tuple(int(x // size) % cells for x in p)
        if not _clear(p, c, points, grid, cells, box, limit2):
            continue
        grid.setdefault(c, []).append(len(points))
        points.append(p)
    return points


def _clear(p, c, points, grid, cells, box, limit2):
    """True when no point in the 27 cells around cell c is closer than sqrt(limit2) to p."""
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dz in (-1, 0, 1):
                key = ((c[0] + dx) % cells, (c[1] + dy) % cells, (c[2] + dz) % cells)
                for q in grid.get(key, ()):
                    d2 = 0.0
                    for u, v in zip(p, points[q]):
                        d = u - v
                        d -= box * round(d / box)  # minimum image
                        d2 += d * d
                    if d2 < limit2:
                        return False
    return True
