"""Balancer: the Python face of Balancer<N>, dispatching on the domain's dimensions."""
import abc

from . import _tessera


class Balancer(abc.ABC):
    """`Balancer(domain, policy="horizon", interval=5, weights="throughput", lb=1.0, ub=1.5)`:
    measures every rank's work with `timer()` (`with bal.timer(): sweep()`), and at every
    `interval`-th `step()` decides with the policy (none, full, static-<delta>, d3arc-adaptive,
    amortised-<K>, horizon) how far to move toward a balanced distribution, and migrates every
    array of the domain. Returns a Balancer1D/2D/3D."""

    def __new__(cls, domain, policy="horizon", interval=5, weights="throughput", lb=1.0, ub=1.5):
        return getattr(_tessera, f"Balancer{domain.ndim}D")(domain, policy, interval, weights, lb, ub)


class BoxBalancer(abc.ABC):
    """`BoxBalancer(domain, policy="horizon", interval=5, target="knapsack", relabel=True,
    max_bytes_per_step=0)`: the
    Balancer of a box-set domain (`tessera.box_set`). Time each box with `timer(p)` (`with
    bal.timer(p): work()`, patch p stores box `box_of_patch(p)`); at every `interval`-th `step()` the
    box times are summed, a knapsack or morton target is made from them (relabeled for locality),
    the policy decides Δ and the boxes with the best gain per cell move, every array of the domain
    with them; `max_bytes_per_step` (0: none) caps the bytes one remap point moves. Returns a
    BoxBalancer1D/2D/3D."""

    def __new__(cls, domain, policy="horizon", interval=5, target="knapsack", relabel=True, max_bytes_per_step=0):
        return getattr(_tessera, f"BoxBalancer{domain.ndim}D")(domain, policy, interval, target, relabel,
                                                               max_bytes_per_step)


for _n in (1, 2, 3):
    Balancer.register(getattr(_tessera, f"Balancer{_n}D"))
    BoxBalancer.register(getattr(_tessera, f"BoxBalancer{_n}D"))
