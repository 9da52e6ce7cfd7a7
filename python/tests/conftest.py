"""pytest under mpiexec: every rank runs every test; only rank 0 prints pytest's report; other
ranks print only their failures, prefixed [rank K]; at the end rank 0 names the ranks each failed
test failed on, and every rank exits with the worst exit status of any rank, so that a failure on
any rank fails the run (python/tests/harness/ proves it). A test that hangs (a collective some
rank never reaches) ends the process after TESSERA_PYTEST_TIMEOUT seconds (default 120), which
ends the MPI job."""
import faulthandler
import os
import shutil
import sys
import tempfile

import pytest
from mpi4py import MPI

import tessera  # noqa: F401  (imported before any test, on every rank, in the same order)

WORLD = MPI.COMM_WORLD
RANK = WORLD.Get_rank()
TIMEOUT = float(os.environ.get("TESSERA_PYTEST_TIMEOUT", "120"))
_failed_here = []


@pytest.hookimpl(trylast=True)  # after the terminal plugin has registered its reporter
def pytest_configure(config):
    # Each rank its own base temporary folder (pytest numbers its folders and the ranks would race),
    # named by process so that runs side by side do not meet; removed at the end (unconfigure).
    if not config.option.basetemp:
        config.option.basetemp = os.path.join(tempfile.gettempdir(), f"tessera-pytest-{os.getpid()}-rank{RANK}")
        config._tessera_own_basetemp = config.option.basetemp
    if RANK != 0:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            config.pluginmanager.unregister(reporter)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    faulthandler.dump_traceback_later(TIMEOUT, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def pytest_runtest_logreport(report):
    if report.failed:
        _failed_here.append(report.nodeid)
        if RANK != 0:
            sys.stderr.write(f"[rank {RANK}] FAILED {report.nodeid} ({report.when})\n{report.longreprtext}\n")
            sys.stderr.flush()


def pytest_sessionfinish(session, exitstatus):
    failed = WORLD.gather(_failed_here, root=0)
    if RANK == 0:
        on_ranks = {}
        for rank, names in enumerate(failed):
            for name in names:
                on_ranks.setdefault(name, []).append(rank)
        for name, ranks in on_ranks.items():
            sys.stdout.write(f"\n{name} failed on rank(s) {', '.join(map(str, ranks))}")
        if on_ranks:
            sys.stdout.write("\n")
    worst = WORLD.allreduce(int(exitstatus), op=MPI.MAX)
    session.exitstatus = worst


def pytest_unconfigure(config):
    # After pytest_sessionfinish's allreduce: no rank reads rank 0's folder (shared_tmp) any more.
    own = getattr(config, "_tessera_own_basetemp", None)
    if own:
        shutil.rmtree(own, ignore_errors=True)


@pytest.fixture
def comm():
    """MPI.COMM_WORLD."""
    return WORLD


@pytest.fixture
def shared_tmp(tmp_path):
    """A folder every rank sees by the same path (rank 0's temporary folder)."""
    return WORLD.bcast(str(tmp_path), root=0)
