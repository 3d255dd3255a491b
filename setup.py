"""Package list for setuptools (everything else is in pyproject.toml).

The bundled files live in the repository's top-level ``resources/`` so that a source checkout, the
PyInstaller spec and the wheel share one copy; here they become the package ``svtgui._resources``
of the wheel, which :func:`svtgui.assets.asset` searches. Scripts that *generate* resources
(``make_icons.py``, ``make_samples.py``) stay out of the wheel.
"""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

RESOURCES = "svtgui._resources"


class BuildPy(build_py):
    """``build_py`` that ships only the data files of the resources package, never its scripts."""

    def find_package_modules(self, package, package_dir):
        return [] if package == RESOURCES else super().find_package_modules(package, package_dir)


setup(
    packages=[*find_packages(include=["svtgui", "svtgui.*"]), RESOURCES],
    package_dir={RESOURCES: "resources"},
    cmdclass={"build_py": BuildPy},
)
