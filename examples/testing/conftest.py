"""A pytest fixture that starts `latchkey serve --test --seed seed.json` for the session.

LATCHKEY_COMMAND names the command (default: `npx latchkey`). The fixture reads the one JSON line
the test mode writes on stdout (url, admin_url, admin_token, seeded) and stops the server at the end.
"""
import json
import os
import pathlib
import shlex
import signal
import subprocess

import pytest
import requests

HERE = pathlib.Path(__file__).parent


class Latchkey:
    def __init__(self, start_line):
        self.url = start_line["url"]
        self.admin_url = start_line["admin_url"]
        self.seeded = start_line["seeded"]
        self._admin = requests.Session()
        self._admin.headers["Authorization"] = f"Bearer {start_line['admin_token']}"

    def control(self, method, path, body=None):
        """A control call of the test mode (/admin/v1/test/...)."""
        answer = self._admin.request(method, f"{self.admin_url}/admin/v1/test/{path}", json=body)
        answer.raise_for_status()
        return answer.json() if answer.content else None

    def consent(self, authorize_url, screen_name, decision="allow"):
        """Answers an OAuth 2.0 authorization request as the person would: where the browser would go next."""
        return self.control("POST", "consent/oauth2", {"authorize_url": authorize_url, "screen_name": screen_name, "decision": decision})["location"]

    def reset(self):
        self.control("POST", "reset")


@pytest.fixture(scope="session")
def latchkey():
    command = shlex.split(os.environ.get("LATCHKEY_COMMAND", "npx latchkey"))
    # A process group of its own: npx and npm run start the server under a shell that does not pass
    # SIGTERM on, so the signal goes to the whole group.
    server = subprocess.Popen(
        [*command, "serve", "--test", "--seed", str(HERE / "seed.json")],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        line = server.stdout.readline()
        if not line:
            raise RuntimeError("latchkey serve --test exited before its start line")
        yield Latchkey(json.loads(line))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


@pytest.fixture(autouse=True)
def fresh(latchkey):
    """Every test starts from the seed."""
    latchkey.reset()
