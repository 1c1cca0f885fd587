from pathlib import Path
from typing import Literal

import pytest

from harness.core.spec import ComponentSpec, SpecError, bind_options


class Configurable:
    def __init__(
        self,
        model: Path,
        threshold: float = 0.5,
        workers: int = 1,
        strict: bool = True,
        mode: Literal["a", "b"] = "a",
        note: str | None = None,
    ) -> None:
        pass


def test_parse_and_round_trip():
    spec = ComponentSpec.parse("verifyrm:model=/m/path,threshold=0.25")
    assert spec.name == "verifyrm"
    assert dict(spec.options) == {"model": "/m/path", "threshold": "0.25"}
    assert str(spec) == "verifyrm:model=/m/path,threshold=0.25"
    assert ComponentSpec.parse("rule").options == {}


@pytest.mark.parametrize("bad", ["", ":x=1", "rule:threshold", "rule:a=1,a=2", "rule:=3"])
def test_malformed_specs(bad):
    with pytest.raises(SpecError):
        ComponentSpec.parse(bad)


def test_bind_converts_types():
    kwargs = bind_options(
        Configurable,
        {"model": "~/m", "threshold": "0.7", "workers": "3", "strict": "no", "mode": "b", "note": "none"},
        what="reward 'x'",
    )
    assert kwargs == {
        "model": Path("~/m").expanduser(),
        "threshold": 0.7,
        "workers": 3,
        "strict": False,
        "mode": "b",
        "note": None,
    }


def test_bind_names_the_bad_key_and_suggests():
    with pytest.raises(SpecError, match=r"reward 'x' has no option 'threshhold'; did you mean 'threshold'\?"):
        bind_options(Configurable, {"model": "m", "threshhold": "1"}, what="reward 'x'")


def test_bind_rejects_bad_values_and_missing_required():
    with pytest.raises(SpecError, match="bad value 'lots' for option 'workers'"):
        bind_options(Configurable, {"model": "m", "workers": "lots"}, what="reward 'x'")
    with pytest.raises(SpecError, match="expected one of a, b"):
        bind_options(Configurable, {"model": "m", "mode": "c"}, what="reward 'x'")
    with pytest.raises(SpecError, match="needs the option"):
        bind_options(Configurable, {}, what="reward 'x'")
