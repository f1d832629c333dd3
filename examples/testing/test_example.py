"""python3 -m pytest examples/testing (LATCHKEY_COMMAND as conftest.py says)."""
import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlencode, urlparse

import requests

REDIRECT_URI = "http://127.0.0.1:8000/callback"


def test_pkce_sign_in_and_users_me(latchkey):
    client_id = latchkey.seeded["apps"][0]["client_id"]
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT_URI,
        "scope": "tweet.read users.read", "state": "xyz", "code_challenge": challenge, "code_challenge_method": "S256",
    })
    location = latchkey.consent(f"{latchkey.url}/i/oauth2/authorize?{query}", "alice")
    code = parse_qs(urlparse(location).query)["code"][0]
    tokens = requests.post(f"{latchkey.url}/2/oauth2/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
        "code_verifier": verifier, "client_id": client_id,
    }).json()
    me = requests.get(f"{latchkey.url}/2/users/me", headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert me.status_code == 200
    assert me.json()["data"]["username"] == "alice"


def test_a_wrong_verifier_is_refused(latchkey):
    client_id = latchkey.seeded["apps"][0]["client_id"]
    query = urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT_URI,
        "scope": "users.read tweet.read", "state": "s", "code_challenge": "a" * 43, "code_challenge_method": "plain",
    })
    location = latchkey.consent(f"{latchkey.url}/i/oauth2/authorize?{query}", "alice")
    code = parse_qs(urlparse(location).query)["code"][0]
    answer = requests.post(f"{latchkey.url}/2/oauth2/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
        "code_verifier": "b" * 43, "client_id": client_id,
    })
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_request"
