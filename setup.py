"""The one compiled part, the search kernel (core/bots/_kernel.pyx), and only that:
everything else is in pyproject.toml. ``optional=True``: when it does not compile (no C
compiler, no Python headers) the install still succeeds and the bot runs its pure-Python
simulator (core/bots/search.py)."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("xactika.core.bots._kernel", ["core/bots/_kernel.pyx"], optional=True,
              extra_compile_args=["-O3"]),
])
