"""Build hook: a wheel carries the course (``content/``) and the templates inside the package, as
``generator/_data``, so an installed torchdeck builds from any folder (``generator.resources``).
An editable install reads them from the checkout instead."""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithData(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in ("content", "templates"):
            target = Path(self.build_lib, "generator", "_data", name)
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(ROOT / name, target, ignore=shutil.ignore_patterns("__pycache__", ".*"))


setup(cmdclass={"build_py": BuildWithData})
