#!/usr/bin/python3
"""OAuth 2.0 user context (authorization code with PKCE) against Latchkey, driven by requests-oauthlib's
OAuth2Session as its documentation uses it.

Usage: requests_oauthlib_oauth2_flow.py SERVER_URL CLIENT_ID CLIENT_SECRET REDIRECT_URI

The script:
  1. makes a PKCE verifier and its S256 challenge (Debian's requests-oauthlib 1.3 predates its
     pkce= option, so they go to authorization_url and fetch_token as extra parameters) and prints
     one line "AUTHORIZE <authorization url>";
  2. reads one line on stdin: the URL the browser was redirected to;
  3. fetches the token (HTTP Basic client authentication), GETs /2/users/me, refreshes the token,
     GETs /2/users/me with the new one and with the old one;
  4. prints one line "RESULT <json>" and exits 0. A failure prints "RESULT {"error": ...}" and exits 1.
"""
import base64
import hashlib
import json
import os
import secrets
import sys
import traceback

from requests.auth import HTTPBasicAuth
from requests_oauthlib import OAuth2Session

# Latchkey under test speaks plain HTTP on the loopback.
os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"


def answer(response):
    try:
        body = response.json()
    except ValueError:
        body = response.text
    return {"status": response.status_code, "body": body}


def run(server, client_id, client_secret, redirect_uri):
    result = {}
    verifier = secrets.token_urlsafe(64)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode("ascii")
    session = OAuth2Session(client_id, redirect_uri=redirect_uri, scope=["tweet.read", "users.read", "offline.access"])
    url, state = session.authorization_url(server + "/i/oauth2/authorize", code_challenge=challenge, code_challenge_method="S256")
    print("AUTHORIZE " + url, flush=True)
    redirected = sys.stdin.readline().strip()
    token = session.fetch_token(
        server + "/2/oauth2/token", authorization_response=redirected, client_secret=client_secret, code_verifier=verifier
    )
    result["token"] = {key: (value if key in ("token_type", "expires_in", "scope") else bool(value)) for key, value in token.items() if key != "expires_at"}
    result["me"] = answer(session.get(server + "/2/users/me"))
    old_access = token["access_token"]
    refreshed = session.refresh_token(server + "/2/oauth2/token", auth=HTTPBasicAuth(client_id, client_secret))
    result["refreshed_is_new"] = refreshed["access_token"] != old_access and bool(refreshed.get("refresh_token"))
    result["me_after_refresh"] = answer(session.get(server + "/2/users/me"))
    stale = OAuth2Session(client_id, token={"access_token": old_access, "token_type": "bearer"})
    result["me_with_old_token"] = answer(stale.get(server + "/2/users/me"))
    return result


if __name__ == "__main__":
    try:
        print("RESULT " + json.dumps(run(*sys.argv[1:5])), flush=True)
    except Exception as error:  # noqa: BLE001 - reported to the test, which fails on it
        print("RESULT " + json.dumps({"error": repr(error), "traceback": traceback.format_exc()}), flush=True)
        sys.exit(1)
