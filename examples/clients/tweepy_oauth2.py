#!/usr/bin/python3
"""tweepy's OAuth2UserHandler (authorization code with PKCE) and tweepy.Client against Latchkey.

Usage: tweepy_oauth2.py LATCHKEY_URL CLIENT_ID CLIENT_SECRET REDIRECT_URI
Prints "AUTHORIZE <url>"; open it, allow, then type the URL you were sent to and Enter.
Prints "USERNAME <name>" from Client.get_me() with the user's access token.
"""
import os
import sys

import tweepy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from latchkey_adapter import LatchkeyAdapter  # noqa: E402


def main(base_url, client_id, client_secret, redirect_uri):
    base_url = base_url.rstrip("/")
    handler = tweepy.OAuth2UserHandler(
        client_id=client_id, client_secret=client_secret, redirect_uri=redirect_uri, scope=["tweet.read", "users.read", "offline.access"]
    )
    # The handler is a requests Session: its token request (https://api.twitter.com/2/oauth2/token) goes to Latchkey.
    handler.mount("https://api.twitter.com/", LatchkeyAdapter(base_url))
    # Its authorize link names https://twitter.com: the same path and query at Latchkey.
    link = handler.get_authorization_url().replace("https://twitter.com", base_url, 1)
    print("AUTHORIZE " + link, flush=True)
    token = handler.fetch_token(sys.stdin.readline().strip())

    client = tweepy.Client(token["access_token"])
    client.session.mount("https://api.twitter.com/", LatchkeyAdapter(base_url))
    me = client.get_me(user_auth=False)
    print("USERNAME " + me.data.username, flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:5])
