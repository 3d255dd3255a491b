"""Package list for setuptools (everything else is in pyproject.toml).

The bundled files live in the repository's top-level ``resources/`` so that a source checkout, the
PyInstaller spec and the wheel share one copy; here they become the package ``svtgui._resources``
of the wheel, which :func:`svtgui.assets.asset` searches.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["svtgui", "svtgui.*"]), "svtgui._resources"],
    package_dir={"svtgui._resources": "resources"},
)
