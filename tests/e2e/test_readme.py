"""The README's "Try it" commands, run as written against a real server: each answers, the keyed one too."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests.conftest import LiveServer

README = Path(__file__).resolve().parents[2] / "README.md"


def try_it_blocks() -> list[str]:
    section = README.read_text(encoding="utf-8").split("## Try it", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, re.S)


def test_the_try_it_commands_work_as_written(live_server: LiveServer) -> None:
    blocks = try_it_blocks()
    assert len(blocks) == 3 and "Authorization: Bearer $key" in blocks[1] and "/v1/chat/completions" in blocks[2]
    cli = f"{shlex.quote(sys.executable)} -m garage_tools"
    last_answers: list[str] = []
    for block in blocks:
        script = block.replace("localhost:8000", live_server.url).replace(".venv/bin/garage-tools", cli)
        script = script.replace("curl -s ", "curl -s -f -w '\\n' ")  # fail on an HTTP error; one answer a line
        run = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=live_server.workdir,
            env=live_server.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        answers = [line for line in run.stdout.splitlines() if line.startswith('{"')]
        assert answers and all("error" not in json.loads(answer) for answer in answers), run.stdout
        last_answers.append(answers[-1])
    assert "chunks" in last_answers[1]  # the key opened retrieveLabContext
    assert json.loads(last_answers[2])["choices"][0]["message"]["content"].startswith("No.")  # the spring question
