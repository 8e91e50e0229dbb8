"""A folder's new modules built one a step before its first snapshot (``AnalysisHost.build_steps``,
the server's index: ``lsp/scheduler.py``) give the analysis the snapshot alone gives, whatever
changes between the steps and the snapshot: an edit, the settings, a module that fails."""

from __future__ import annotations

import pytest

from tfphi import analysis as analysis_module
from tfphi.analysis import AnalysisHost, SetSource

from host_support import LAYOUTS, everything, fresh


def host_of(texts: dict[str, str]) -> AnalysisHost:
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    return host


def built_in_steps(host: AnalysisHost) -> int:
    """Runs ``build_steps`` to its end; returns the steps it took."""
    return sum(1 for _ in host.build_steps())


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_modules_built_in_steps_give_the_fresh_analysis(name):
    texts = LAYOUTS[name]
    host = host_of(texts)
    steps = built_in_steps(host)
    dirs = {path.rpartition("/")[0] for path in texts}
    assert steps == len(dirs)  # one module a step
    built = host.modules_built
    assert built == len(dirs)
    assert everything(host.snapshot()) == everything(fresh(texts))
    assert host.modules_built == built  # the snapshot built none again


def test_an_edit_between_the_steps_and_the_snapshot_is_in_the_snapshot():
    texts = dict(LAYOUTS["repository root"])
    host = host_of(texts)
    steps = host.build_steps()
    next(steps)  # some modules built, then an edit to one built and one not yet built
    next(steps)
    edited = {path: text.replace('"15.4"', '"16.2"').replace("postgres", "mysql") for path, text in texts.items()}
    host.apply_change([SetSource(path, text.encode()) for path, text in edited.items() if text != texts[path]])
    for _ in steps:
        pass
    assert everything(host.snapshot()) == everything(fresh(edited))


def test_settings_changed_after_the_steps_build_the_modules_again():
    """A module built ahead under other settings (the engine decides its files) is built again."""
    texts = {"main.tf": 'module "db" {\n  source = "./db"\n}\n',
             "db/main.tf": 'output "engine" {\n  value = "postgres"\n}\n',
             "db/main.tofu": 'output "engine" {\n  value = "mysql"\n}\n'}
    host = host_of(texts)
    built_in_steps(host)
    host.set_config('engine = "terraform"\n')
    snapshot = host.snapshot()
    assert snapshot.modules["db"].files == ("db/main.tf",)
    expected = AnalysisHost()
    expected.set_config('engine = "terraform"\n')
    expected.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    assert everything(snapshot) == everything(expected.snapshot())


def test_a_module_that_fails_in_a_step_is_recorded_by_the_snapshot(monkeypatch):
    def fault(stage: str, dir: str) -> None:
        if stage == "build" and dir == "modules/db":
            raise RuntimeError("injected")

    monkeypatch.setattr(analysis_module, "_fault_injection", fault)
    host = host_of(LAYOUTS["repository root"])
    built_in_steps(host)
    snapshot = host.snapshot()
    alone = host_of(LAYOUTS["repository root"]).snapshot()
    assert "modules/db" not in snapshot.modules and "injected" in snapshot.failures["build:modules/db"]
    assert (set(snapshot.modules), set(snapshot.failures)) == (set(alone.modules), set(alone.failures))
