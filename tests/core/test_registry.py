import sys

import pytest

from harness.core.registry import DuplicateNameError, Registry, RegistryError, UnknownNameError


class Thing:
    """A thing for tests."""


def test_lazy_entry_is_not_imported_until_get(tmp_path, monkeypatch):
    (tmp_path / "lazy_mod_for_registry_test.py").write_text("class C:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    reg: Registry = Registry("widget")
    reg.add_lazy("c", "lazy_mod_for_registry_test:C", "a lazy one")
    assert reg.names() == ["c"]
    assert reg.entry("c").summary == "a lazy one"
    assert "lazy_mod_for_registry_test" not in sys.modules
    cls = reg.get("c")
    assert cls.__name__ == "C" and "lazy_mod_for_registry_test" in sys.modules


def test_listing_builtin_rewards_imports_no_reward_code():
    import subprocess

    code = (
        "import sys; from harness.catalog import catalog; catalog('all');"
        "heavy = [m for m in ('rewards.rule', 'math_verify', 'sympy', 'torch') if m in sys.modules];"
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_decorator_registration_and_duplicate_error():
    reg: Registry = Registry("widget")

    @reg.register("thing")
    class Local:
        pass

    assert reg.get("thing") is Local
    assert reg.register("thing", Local) is Local  # the same object again is not a conflict
    with pytest.raises(DuplicateNameError, match="already registered"):
        reg.register("thing", Thing)
    reg.add_lazy("lazy", "x.y:Z")
    with pytest.raises(DuplicateNameError):
        reg.add_lazy("lazy", "x.y:Other")


def test_unknown_name_suggests_close_match():
    reg: Registry = Registry("reward")
    reg.add_lazy("verifyrm", "x:Y")
    with pytest.raises(UnknownNameError) as info:
        reg.get("verifyrn")
    message = str(info.value)
    assert "unknown reward 'verifyrn'" in message and "did you mean 'verifyrm'" in message
    assert "harness ls rewards" in message


def test_bad_target_gives_clear_error():
    reg: Registry = Registry("reward")
    reg.add_lazy("gone", "no_such_module_anywhere:Thing")
    with pytest.raises(RegistryError, match="could not be imported"):
        reg.get("gone")
    reg.add_lazy("noattr", "harness.core.registry:NoSuchThing")
    with pytest.raises(RegistryError, match="does not exist"):
        reg.get("noattr")


def test_missing_optional_dependency_names_the_extra():
    from harness.core.optional import MissingDependencyError, require

    # vllm is never installed in the CPU test environment
    assert "vllm" not in sys.modules
    with pytest.raises(MissingDependencyError, match=r"pip install 'rl-reward-harness\[vllm\]'"):
        require("vllm", "the vllm generation backend")


def test_lazy_entry_whose_module_lacks_a_dependency_says_what_to_install(tmp_path, monkeypatch):
    (tmp_path / "needs_vllm_for_registry_test.py").write_text("import vllm\nclass R:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    reg: Registry = Registry("reward")
    reg.add_lazy("fast", "needs_vllm_for_registry_test:R")
    with pytest.raises(RegistryError, match=r"pip install 'rl-reward-harness\[vllm\]'"):
        reg.get("fast")


def test_a_registry_refuses_a_class_that_is_not_of_its_declared_type():
    from harness.core.registry import Registry, RegistryError
    from rewards.contract import Reward

    rewards = Registry("reward", base=Reward)

    class NoScore:
        def grade(self, items):
            return []

    with pytest.raises(RegistryError, match="is .*NoScore, which is not a rewards.contract.Reward"):
        rewards.register("no-score", NoScore)
    rewards.add_lazy("lazy-no-score", "collections:OrderedDict")  # checked when it is loaded
    with pytest.raises(RegistryError, match="lazy-no-score.*not a rewards.contract.Reward"):
        rewards.get("lazy-no-score")

    class Scores:
        def score(self, items):
            return []

    assert rewards.register("scores", Scores) is Scores
    assert rewards.register("factory", lambda: Scores())  # a factory is checked on what it builds


def test_a_frozen_registry_takes_no_new_name():
    from harness.core.registry import Registry, RegistryError

    registry = Registry("suite")
    registry.add_lazy("a", "collections:OrderedDict")
    registry.freeze()
    with pytest.raises(RegistryError, match="frozen"):
        registry.add_lazy("b", "collections:OrderedDict")
    with pytest.raises(RegistryError, match="frozen"):
        registry.register("c", dict)
    assert registry.names() == ["a"]
