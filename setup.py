"""The compiled parts, the search kernel (core/bots/_kernel.pyx) and the deal sampler's
programme (core/bots/_sampler.pyx), and only those: everything else is in pyproject.toml.
``optional=True``: when one does not compile (no C compiler, no Python headers, a
compiler without gcc's builtins or 128-bit integers) the install still succeeds and the
bot runs that part's pure-Python twin (core/bots/simulator.py, core/bots/sampler.py)."""

import platform
import sys

from setuptools import Extension, setup

FLAGS = [] if sys.platform == "win32" else ["-O3"]
if FLAGS and platform.machine().lower() in ("x86_64", "amd64"):
    # one instruction a popcount (every x86-64 CPU since 2008); the kernel checks the CPU
    # when it loads and the search falls back to Python on one without it
    FLAGS.append("-mpopcnt")

setup(ext_modules=[
    Extension("xactika.core.bots._kernel", ["core/bots/_kernel.pyx"], optional=True,
              extra_compile_args=FLAGS),
    # no -mpopcnt: the sampler counts no bits, and loads on any CPU
    Extension("xactika.core.bots._sampler", ["core/bots/_sampler.pyx"], optional=True,
              extra_compile_args=FLAGS[:1]),
])
