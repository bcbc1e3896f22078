"""The docstring examples of every module of the installed package (the rules core, the
network, the AI and the client), run as tests: the examples in the documentation stay
true. Imported by name, so they run against what `pip install .` installed."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("tractor", "tractor.net", "tractor.net.deck", "tractor.ai", "tractor.cli")


def _modules() -> list[str]:
    # Package by package: an editable install maps the subpackages from other folders,
    # so walking the top package's folder alone would miss them.
    names = set(PACKAGES)
    for package in PACKAGES:
        path = importlib.import_module(package).__path__
        names.update(info.name for info in pkgutil.iter_modules(path, package + ".")
                     if not info.name.endswith("__main__"))
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
