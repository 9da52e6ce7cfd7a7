"""Boundary rules for ghost cells (ZPL's wrap and reflect; C++ tessera::boundary and
tessera::BoundaryRules, array/boundary_rules.hpp): what a ghost update writes into the ghost cells
outside the domain box, per axis and side, and into ghost cells over the holes of a box set.

    import tessera
    from tessera import boundary as bc

    u.set_boundary(bc.BoundaryRules()
                   .along(0, bc.reflect())            # both sides of axis 0: even mirror
                   .low(1, bc.constant(1.0))          # a Dirichlet value below along axis 1
                   .high(1, bc.extrapolate())         # linear extrapolation above
                   .holes(bc.constant(-1.0)))         # ghost cells over a box set's holes
    u.update_ghosts()                                 # the exchange, then the rules

Which cells each rule sets and in which order (so that corners are defined) is in docs/python.md,
"Boundary rules". Making rules does not communicate; set them alike on every rank.
"""
from ._errors import InvalidArgumentError

#: The kinds of rule, as the C++ BoundaryKind names them.
KINDS = ("none", "reflect", "constant", "extrapolate", "function")


class Rule:
    """One side's rule; made by none(), reflect(), constant(), extrapolate() or function()."""

    __slots__ = ("kind", "sign", "value", "f")

    def __init__(self, kind, sign=1, value=None, f=None):
        self.kind, self.sign, self.value, self.f = kind, sign, value, f

    def __eq__(self, other):
        return (isinstance(other, Rule) and (self.kind, self.sign, self.f) == (other.kind, other.sign, other.f)
                and _same_value(self.value, other.value))

    def __repr__(self):
        if self.kind == "reflect":
            return f"reflect({self.sign})"
        if self.kind == "constant":
            return f"constant({self.value!r})"
        if self.kind == "function":
            return f"function({self.f!r})"
        return f"{self.kind}()"


def _same_value(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


def none():
    """No rule: the cells keep what the program wrote there (clears a side set before)."""
    return Rule("none")


def reflect(sign=1):
    """The mirror image about the boundary face (ghost lo-1-k holds lo+k); sign -1 negates it (odd
    symmetry). InvalidArgumentError for a sign other than 1 or -1."""
    if isinstance(sign, bool) or sign not in (1, -1):
        raise InvalidArgumentError(f"boundary.reflect: argument 'sign' = {sign!r} must be 1 or -1")
    return Rule("reflect", sign=int(sign))


def constant(value):
    """One value in every ghost cell the rule covers (converted to the array's element type when the
    rules are set: InvalidArgumentError there if it does not convert)."""
    return Rule("constant", value=value)


def extrapolate():
    """Linear extrapolation through the two cells nearest the face: ghost lo-1-k holds
    v(lo) + (k+1) * (v(lo) - v(lo+1)), and alike above."""
    return Rule("extrapolate")


def function(f):
    """f(index) at each ghost cell the rule covers, `index` the cell's global index as a tuple; its
    result is converted to the array's element type. Called during every ghost update, from the
    rank that stores the cell. InvalidArgumentError if f is not callable."""
    if not callable(f):
        raise InvalidArgumentError(f"boundary.function: argument 'f' = {f!r} is not callable")
    return Rule("function", f=f)


class BoundaryRules:
    """The rules of an array: one per side of each axis and one for holes, none by default.
    `low`, `high`, `along` and `holes` return the rules, so that calls chain. The axis is checked
    against the array's dimensions by `DistArray.set_boundary`."""

    def __init__(self):
        self._sides = {}  # (axis, high) -> Rule, only sides with a rule
        self._holes = none()

    def low(self, axis, rule):
        """Sets the rule of the low side of `axis`."""
        return self._set(axis, False, rule, "low")

    def high(self, axis, rule):
        """Sets the rule of the high side of `axis`."""
        return self._set(axis, True, rule, "high")

    def along(self, axis, rule):
        """Sets the same rule on both sides of `axis`."""
        self._set(axis, False, rule, "along")
        return self._set(axis, True, rule, "along")

    def holes(self, rule):
        """Sets the rule for ghost cells inside the domain box that no box of a box set holds:
        reflect (a wall around each box: the patch's own cell mirrored about its box's faces,
        negated once for reflect(-1)), constant, function (at the in-domain index) or none.
        InvalidArgumentError for extrapolate: not defined beyond a box's corner."""
        _check_rule("BoundaryRules.holes", rule)
        if rule.kind == "extrapolate":
            raise InvalidArgumentError(f"BoundaryRules.holes: argument 'rule' = {rule!r} is not defined inside a "
                                       "hole: use boundary.reflect, boundary.constant or boundary.function")
        self._holes = rule
        return self

    def side(self, axis, high):
        """The rule of one side (`high` False: the low side)."""
        return self._sides.get((axis, bool(high)), none())

    @property
    def hole_rule(self):
        """The rule for ghost cells over holes."""
        return self._holes

    @property
    def sides(self):
        """[(axis, high, rule)] for every side with a rule, in axis order, low side first."""
        return [(axis, high, rule) for (axis, high), rule in sorted(self._sides.items())]

    def __eq__(self, other):
        return isinstance(other, BoundaryRules) and self.sides == other.sides and self._holes == other._holes

    def __repr__(self):
        parts = [f".{'high' if high else 'low'}({axis}, {rule!r})" for axis, high, rule in self.sides]
        if self._holes.kind != "none":
            parts.append(f".holes({self._holes!r})")
        return "BoundaryRules()" + "".join(parts)

    def _set(self, axis, high, rule, where):
        _check_rule(f"BoundaryRules.{where}", rule)
        if isinstance(axis, bool) or not isinstance(axis, int) or axis < 0:
            raise InvalidArgumentError(f"BoundaryRules.{where}: argument 'axis' = {axis!r} is not an axis "
                                       "(axes count from 0)")
        if rule.kind == "none":
            self._sides.pop((axis, high), None)
        else:
            self._sides[(axis, high)] = rule
        return self


def _check_rule(where, rule):
    if not isinstance(rule, Rule):
        raise InvalidArgumentError(f"{where}: argument 'rule' = {rule!r} is not a boundary rule (make one with "
                                   "boundary.reflect, constant, extrapolate, function or none)")
