"""The reference service is the extra `serve`: orgctl without it validates and plans, and
`orgctl serve` names the extra instead of failing on an import."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from tests.cli import CLI_TIMEOUT_SECONDS, env_with

from .harness import EXAMPLES, ROOT, World

WEB_STACK = ("starlette", "uvicorn", "trustme")

# orgctl as it runs where the extra is not installed: importing any of the web stack fails
# as it would for a package that is absent (ModuleNotFoundError naming it).
WITHOUT_WEB_STACK = (
    "import runpy, sys;"
    f"sys.modules.update(dict.fromkeys({WEB_STACK!r}));"
    "sys.argv = ['orgctl', *sys.argv[1:]];"
    "runpy.run_module('reconciler', run_name='__main__')"
)


def orgctl_without_web_stack(
    *args: str | Path, env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_WEB_STACK, *map(str, args)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=CLI_TIMEOUT_SECONDS,
    )


def test_the_web_stack_is_an_extra_not_a_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"])
    assert [name for name in WEB_STACK if name in core] == []
    serve = " ".join(project["optional-dependencies"]["serve"])
    assert [name for name in WEB_STACK if name not in serve] == []


def test_serve_without_the_extra_names_it(tmp_path: Path) -> None:
    result = orgctl_without_web_stack("serve", "--port", "0", env=env_with(), cwd=tmp_path)
    assert result.returncode == 1
    assert "pip install 'orgctl[serve]'" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_validate_and_plan_need_no_web_stack(demo: World) -> None:
    env = demo.env("hq")
    checked = orgctl_without_web_stack("validate", EXAMPLES / "hq", env=env, cwd=demo.workdir)
    assert checked.returncode == 0, checked.stderr
    planned = orgctl_without_web_stack(
        "plan", EXAMPLES / "hq", "--format", "json", env=env, cwd=demo.workdir
    )
    assert planned.returncode == 0, planned.stderr
    assert '"formatVersion": 1' in planned.stdout
