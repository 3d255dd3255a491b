"""Package list for setuptools (everything else is in pyproject.toml).

The bundled files live in the repository's top-level ``resources/`` so that a source checkout, the
PyInstaller spec and the wheel share one copy; here they become the package ``svtgui._resources``
of the wheel, which :func:`svtgui.assets.asset` searches. Scripts that *generate* resources
(``make_icons.py``, ``make_samples.py``) stay out of the wheel. The user guide (``docs/``) ships the
same way as ``svtgui._docs`` for the Help menu (:func:`svtgui.assets.guide`).
"""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

RESOURCES = "svtgui._resources"
DOCS = "svtgui._docs"  # the user guide and its screenshots, for Help → User guide (offline)


class BuildPy(build_py):
    """``build_py`` that ships only the data files of the resources package, never its scripts."""

    def find_package_modules(self, package, package_dir):
        return [] if package in (RESOURCES, DOCS) else super().find_package_modules(package, package_dir)


setup(
    packages=[*find_packages(include=["svtgui", "svtgui.*"]), RESOURCES, DOCS],
    package_dir={RESOURCES: "resources", DOCS: "docs"},
    cmdclass={"build_py": BuildPy},
)
