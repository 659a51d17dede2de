"""Fast builders for the frozen attrs classes the referee makes on every move.

Moved out of core/engine/api.py: :func:`fast_constructor` for states and events,
:func:`fast_new` for commands (bench/random_play.py has the numbers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import attrs

T = TypeVar("T")


def _builder(cls: type, params: list[str], defaults: dict[str, Any], with_cls: bool) -> Any:
    """The source of :func:`fast_constructor` and :func:`fast_new`, compiled: a function
    that makes a blank twin of ``cls`` (the same slots, no frozen ``__setattr__``),
    fills it by plain attribute stores and turns it into ``cls`` (or into its first
    argument ``_cls``, as a ``__new__``)."""
    names = [a.name for a in attrs.fields(cls)]
    slots = getattr(cls, "__slots__", None)
    if slots is None or tuple(slots) != tuple(names):
        raise TypeError(f"{cls.__name__} needs slots=True and weakref_slot=False")
    if {"_cls", "_blank", "_obj"} & set(names):
        raise TypeError(f"{cls.__name__} has a field named like a builder variable")
    namespace: dict[str, Any] = {
        "_cls": cls, "_blank": type(f"_{cls.__name__}Blank", (), {"__slots__": tuple(names)}),
        **{f"_default_{n}": d for n, d in defaults.items()},
    }
    head = ", ".join(["_cls", *params] if with_cls else params)
    body = "".join(f"    _obj.{n} = {n}\n" for n in names)
    exec(
        f"def build({head}):\n    _obj = _blank()\n{body}    _obj.__class__ = _cls\n"
        "    return _obj\n",
        namespace,
    )
    return namespace["build"]


def fast_constructor(cls: type[T]) -> Callable[..., T]:
    """A positional constructor for the frozen attrs class ``cls``, several times faster.

    attrs fills a frozen slots instance through ``object.__setattr__`` field by field,
    which made building a 17-field ``State`` most of the referee's time per event
    (bench/random_play.py). This is a plain function that makes a blank twin with the
    same slots, fills it by plain attribute stores and then turns it into ``cls``, so
    what comes out is an ordinary, frozen ``cls`` equal to ``cls(*args)``. A function,
    not the twin's ``__init__``: calling a class with many arguments costs CPython a
    copy of them all (about a thousand machine instructions for ``State``). ``cls``
    must have ``weakref_slot=False`` (a weakref slot blocks the class change) and no
    converters, validators or defaults that the caller relies on: every field is given.
    """
    names = [a.name for a in attrs.fields(cls)]  # type: ignore[arg-type]
    built: Callable[..., T] = _builder(cls, names, {}, with_cls=False)
    return built


def fast_new(cls: type[T]) -> type[T]:
    """Make calling the frozen attrs class ``cls`` as fast as :func:`fast_constructor`.

    For the commands, which a caller builds for every move: attrs' frozen ``__init__``
    stores each field through ``object.__setattr__`` and cost more than the fold of a
    plain card. This gives ``cls`` a ``__new__`` with the ``__init__``'s signature and
    defaults that builds it as :func:`fast_constructor` does, drops the ``__init__``,
    and pickles and copies by calling ``cls`` again. Equality, hashing, repr and
    ``attrs.evolve`` stay attrs' own; type checkers still read attrs' ``__init__``.
    """
    params: list[str] = []
    defaults: dict[str, Any] = {}
    for a in attrs.fields(cls):  # type: ignore[arg-type]
        if a.converter is not None or a.validator is not None or a.name.startswith("_"):
            raise TypeError(f"{cls.__name__}.{a.name}: fast_new takes plain fields only")
        if a.default is attrs.NOTHING:
            params.append(a.name)
        elif isinstance(a.default, type(attrs.Factory(list))):
            raise TypeError(f"{cls.__name__}.{a.name}: fast_new takes plain defaults only")
        else:
            defaults[a.name] = a.default
            params.append(f"{a.name}=_default_{a.name}")
    names = [a.name for a in attrs.fields(cls)]  # type: ignore[arg-type]

    def reduce(self: Any) -> tuple[type, tuple[Any, ...]]:
        return type(self), tuple(getattr(self, n) for n in names)

    for name, value in {
        "__new__": staticmethod(_builder(cls, params, defaults, with_cls=True)),
        "__init__": object.__init__,  # object's: the fields are set by then
        "__reduce__": reduce,
    }.items():
        setattr(cls, name, value)
    return cls
