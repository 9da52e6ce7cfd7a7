"""The balancer (its timer as a context manager, migration under an uneven load) and
checkpoints written on one distribution and read on another."""
import numpy as np
import pytest

import tessera
from reference import fill, values


def test_timer_is_a_context_manager():
    t = tessera.SectionTimer()
    with t:
        sum(range(1000))
    assert t.seconds > 0
    with pytest.raises(tessera.InvalidArgumentError, match="not running"):
        t.stop()


def test_balancer_moves_rows_away_from_a_slow_rank_and_keeps_values(comm):
    n = 32
    dom = tessera.Domain(tessera.Distribution((n, 4), [tessera.block(), tessera.collapsed()], grid=(comm.size, 1)))
    u = tessera.DistArray(dom, np.float64, ghosts=tessera.Ghosts(lower=[1, 0], upper=[1, 0]))
    ref = values(u.box, np.float64)
    fill(u, ref)
    bal = tessera.Balancer(dom, "full", interval=2)
    steps = []
    for _ in range(4):
        with bal.timer():
            pass
        rows = dom.distribution.local_size(comm.rank) // 4
        # emulated work: rank 0 is three times as slow per row as the others
        bal.timer().add(rows * (3e-3 if comm.rank == 0 else 1e-3))
        steps.append(bal.step())
    assert [s.remap_point for s in steps] == [False, True, False, True]
    np.testing.assert_array_equal(u.gather_all(), ref)
    if comm.size > 1:
        assert steps[1].elements > 0
        assert dom.distribution.local_size(0) < dom.distribution.local_size(1)
    with pytest.raises(tessera.InvalidArgumentError, match="policy"):
        tessera.Balancer(dom, "sometimes")


def test_balancer_step_refuses_while_views_are_held(comm):
    dom = tessera.Domain(tessera.Distribution((8,), [tessera.block()]))
    u = tessera.DistArray(dom, np.float64)
    bal = tessera.Balancer(dom, "full", interval=1)
    view = u.local
    with pytest.raises(tessera.ViewsHeldError):
        bal.step(0.001)
    del view
    bal.step(0.001)


def test_checkpoint_round_trip_onto_another_distribution(comm, shared_tmp):
    path = f"{shared_tmp}/ck.h5"
    dom = tessera.Domain(tessera.Distribution((9, 5), [tessera.block(), tessera.block()]))
    u = tessera.DistArray(dom, np.float64, ghosts=1)
    k = tessera.DistArray(dom, np.int32)
    z = tessera.DistArray(dom, np.complex128)
    refs = {"u": values(u.box, np.float64), "k": values(k.box, np.int32), "z": values(z.box, np.complex128)}
    for name, a in (("u", u), ("k", k), ("z", z)):
        fill(a, refs[name])
    tessera.save(path, {"u": u, "k": k, "z": z}, {"iteration": 12, "time": 0.5})
    other = tessera.Domain(tessera.Distribution((9, 5), [tessera.cyclic(), tessera.block()]))
    loaded = {"u": tessera.DistArray(other, np.float64), "k": tessera.DistArray(other, np.int32),
              "z": tessera.DistArray(other, np.complex128)}
    attributes = tessera.load(path, loaded)
    assert attributes == {"iteration": 12, "time": 0.5}
    for name, a in loaded.items():
        np.testing.assert_array_equal(a.gather_all(), refs[name])
    with pytest.raises(tessera.FileIOError):
        tessera.load(f"{shared_tmp}/missing.h5", {"u": loaded["u"]})
    with pytest.raises(tessera.MismatchError):
        tessera.load(path, {"absent": loaded["u"]})
