"""A small API protected by Latchkey, in Python (standard library and requests).

Every request is checked by POST /latchkey/check-request with the credentials of an app registered
as a resource server (`latchkey app create --resource-server`). Run it with:
    LATCHKEY_URL=https://auth.example.org LATCHKEY_CLIENT_ID=... LATCHKEY_CLIENT_SECRET=... \
    PUBLIC_URL=https://api.example.org PORT=8000 python3 api.py
"""
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

LATCHKEY_URL = os.environ["LATCHKEY_URL"]
CREDENTIALS = (os.environ["LATCHKEY_CLIENT_ID"], os.environ["LATCHKEY_CLIENT_SECRET"])
# This API's origin as its clients address it: signatures cover scheme, host and port.
PUBLIC_URL = os.environ["PUBLIC_URL"]
FORM = "application/x-www-form-urlencoded"


def check_request(method, url, headers, body):
    """(caller, None) when Latchkey accepts the request, else (None, refusal): X's answer to pass on."""
    form = body if headers.get("Content-Type", "").startswith(FORM) else None
    answer = requests.post(
        f"{LATCHKEY_URL}/latchkey/check-request",
        auth=CREDENTIALS,
        timeout=5,
        json={"method": method, "url": url, "authorization": headers.get("Authorization"),
              "body": form, "content_type": headers.get("Content-Type") if form else None},
    )
    answer.raise_for_status()  # the check itself failed: never let the request through
    verdict = answer.json()
    return (verdict["caller"], None) if verdict["valid"] else (None, verdict["refusal"])


class Api(BaseHTTPRequestHandler):
    def do_GET(self):
        self.answer_call("")

    def do_POST(self):
        self.answer_call(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())

    def answer_call(self, body):
        try:
            caller, refusal = check_request(self.command, PUBLIC_URL + self.path, self.headers, body)
        except requests.RequestException:
            return self.reply(503, {}, {"errors": [{"code": 130, "message": "Over capacity"}]})
        if refusal:
            return self.reply(refusal["status"], refusal["headers"], refusal["body"])
        self.reply(200, {}, {"hello": caller.get("screen_name") or caller["app_name"], "caller": caller})

    def reply(self, status, headers, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8000"))), Api)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
