#!/usr/bin/python3
"""Authlib's OAuth2Session (authorization code with PKCE, S256) against Latchkey.

Usage: authlib_oauth2.py LATCHKEY_URL CLIENT_ID CLIENT_SECRET REDIRECT_URI
Prints "AUTHORIZE <url>"; open it, allow, then type the URL you were sent to and Enter.
Prints "USERNAME <name>" from /2/users/me with the user's access token.
"""
import sys

from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session


def main(base_url, client_id, client_secret, redirect_uri):
    base_url = base_url.rstrip("/")
    session = OAuth2Session(
        client_id, client_secret, scope="tweet.read users.read offline.access", redirect_uri=redirect_uri, code_challenge_method="S256"
    )
    verifier = generate_token(64)
    url, _state = session.create_authorization_url(base_url + "/i/oauth2/authorize", code_verifier=verifier)
    print("AUTHORIZE " + url, flush=True)
    # A confidential client: HTTP Basic with the client secret (Authlib's default when a secret is given).
    session.fetch_token(base_url + "/2/oauth2/token", authorization_response=sys.stdin.readline().strip(), code_verifier=verifier)
    me = session.get(base_url + "/2/users/me", timeout=30)
    me.raise_for_status()
    print("USERNAME " + me.json()["data"]["username"], flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:5])
