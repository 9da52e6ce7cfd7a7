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


for _n in (1, 2, 3):
    Balancer.register(getattr(_tessera, f"Balancer{_n}D"))
