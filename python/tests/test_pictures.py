"""Pictures of distributions and plans: SVG documents that Jupyter can display."""
import pytest

import tessera


def test_show_draws_every_rank_and_the_ghosts_of_one():
    dist = tessera.Distribution((12, 18), [tessera.cut([0, 4, 12]), tessera.block()], grid=(2, 3), size=6)
    pic = tessera.show(dist, ghosts=1, rank=4)
    assert pic._repr_svg_().startswith("<svg") or pic.svg.startswith("<?xml")
    assert "</svg>" in pic.svg
    assert "4" in str(pic)
    with pytest.raises(tessera.InvalidArgumentError, match="rank 9 does not exist"):
        tessera.show(dist, rank=9)


def test_show_a_slice_of_3d():
    dist = tessera.Distribution((4, 6, 8), [tessera.block(), tessera.block(), tessera.cyclic()], size=4)
    assert "</svg>" in tessera.show(dist, slice=(2, 3)).svg


def test_plan_of_a_redistribution_and_of_a_halo():
    a = tessera.Distribution((1000,), [tessera.block()], size=8)
    b = tessera.Distribution((1000,), [tessera.cyclic()], size=8)
    pic = tessera.plan(a, b)
    assert "</svg>" in pic.svg and "redistribution" in pic.svg
    halo = tessera.plan(a, ghosts=tessera.Ghosts(1, periodic=True))
    assert "</svg>" in halo.svg and "halo" in halo.svg
    with pytest.raises(tessera.MismatchError):
        tessera.plan(a, tessera.Distribution((999,), [tessera.block()], size=8))
