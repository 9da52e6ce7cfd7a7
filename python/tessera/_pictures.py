"""Pictures of distributions and of what a movement sends, as `tessera show` and `tessera plan`
draw them: SVG that Jupyter displays (`_repr_svg_`), and the tool's text."""
from . import _tessera
from ._layout import Ghosts


class Picture:
    """An SVG picture (`svg`) with its text rendering (`text`, also `str(picture)`)."""

    def __init__(self, svg, text):
        self.svg = svg
        self.text = text

    def _repr_svg_(self):
        return self.svg

    def __str__(self):
        return self.text

    def save(self, path):
        """Writes the SVG document to `path`."""
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.svg)


def show(dist, ghosts=None, rank=-1, max_cells=64, slice=None):
    """Who owns which index of `dist`: a colour per rank, the owned boxes labelled and, with
    `rank`, that rank's ghost region (`ghosts`) hatched. `slice=(dim, index)` picks the slice of a
    3-D distribution. Not collective: any rank may draw any distribution."""
    lists = None if ghosts is None else tuple(Ghosts.of(ghosts).lists(dist.ndim))
    return Picture(*_tessera._show(dist, lists, rank, max_cells, slice))


def plan(from_dist, to_dist=None, ghosts=None, element_size=8):
    """The bytes each rank sends to each other rank: of a redistribution `from_dist` ->
    `to_dist`, or, with `to_dist` None, of the ghost update of `from_dist` with `ghosts`. A heat
    map (svg) and the table (text). Not collective."""
    if to_dist is None:
        lists = tuple(Ghosts.of(ghosts).lists(from_dist.ndim))
        return Picture(*_tessera._plan_halo(from_dist, lists, element_size))
    return Picture(*_tessera._plan(from_dist, to_dist, element_size))
