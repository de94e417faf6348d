"""The house's shape as a checked contract (issue 27).

- the import contracts in ``.importlinter`` hold (layers, "storage does not import bots", "workers do not
  import the portal", no cycles inside the portal): the same check as ``make lint``, so CI runs it too;
- no class of the project inherits from more than one project class (concerns are composed, not mixed in);
- no service object grows past 40 public methods.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: A service with this many public methods or more has become a second `Store`: split it.
MAX_SERVICE_METHODS = 40


def _project_modules(package: str = "ludothek") -> list[str]:
    root = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if ".migrations" in info.name or info.name.endswith("__main__"):
            continue
        names.append(info.name)
    return names


def _project_classes() -> list[type]:
    classes: dict[str, type] = {}
    for name in _project_modules():
        module = importlib.import_module(name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if obj.__module__ == name:
                classes[f"{name}.{obj.__qualname__}"] = obj
    return list(classes.values())


def _is_project(cls: type) -> bool:
    return cls.__module__.split(".")[0] == "ludothek"


def test_the_import_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    assert lint.exists(), f"import-linter is not installed beside {sys.executable}"
    run = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_no_class_inherits_from_more_than_one_project_class() -> None:
    mixed = [f"{cls.__module__}.{cls.__qualname__}: {[b.__qualname__ for b in cls.__bases__ if _is_project(b)]}"
             for cls in _project_classes() if sum(_is_project(b) for b in cls.__bases__) > 1]
    assert mixed == []


def test_no_service_has_forty_public_methods() -> None:
    services = [cls for cls in _project_classes() if cls.__module__.startswith("ludothek.services.")]
    assert services, "no service classes found under ludothek.services"
    sizes = {f"{cls.__module__}.{cls.__qualname__}": len([n for n, v in vars(cls).items()
                                                           if not n.startswith("_") and callable(v)])
             for cls in services}
    assert max(sizes.values()) < MAX_SERVICE_METHODS, sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
