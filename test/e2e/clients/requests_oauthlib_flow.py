#!/usr/bin/python3
"""The OAuth 1.0a flow against Latchkey, driven by requests-oauthlib exactly as its documentation uses it.

Usage: requests_oauthlib_flow.py SERVER_URL CONSUMER_KEY CONSUMER_SECRET CALLBACK

CALLBACK is a registered callback URL (the web flow) or "oob" (the PIN flow). The script:
  1. fetches a request token (POST /oauth/request_token) and prints one line
     "AUTHORIZE <authorization url>";
  2. reads one line on stdin: for the web flow the URL the browser was redirected to (handed to
     parse_authorization_response, as a web app's callback handler would), for oob the PIN;
  3. fetches the access token, GETs verify_credentials, POSTs invalidate_token and GETs
     verify_credentials again;
  4. prints one line "RESULT <json>" with what each step answered, and exits 0.
A failure prints "RESULT {"error": ...}" and exits 1. The Node test
(requests-oauthlib.test.ts) plays the person at step 2 and asserts on the JSON.
"""
import json
import sys
import traceback

from requests_oauthlib import OAuth1Session


def answer(response):
    """Status, body (JSON when it parses) and the headers the test checks."""
    try:
        body = response.json()
    except ValueError:
        body = response.text
    return {
        "status": response.status_code,
        "content_type": response.headers.get("content-type"),
        "access_level": response.headers.get("x-access-level"),
        "body": body,
    }


def run(server, key, secret, callback):
    result = {}
    session = OAuth1Session(key, client_secret=secret, callback_uri=callback)
    request_token = session.fetch_request_token(server + "/oauth/request_token")
    result["request_token"] = request_token

    print("AUTHORIZE " + session.authorization_url(server + "/oauth/authorize"), flush=True)
    line = sys.stdin.readline().strip()
    if callback == "oob":
        verifier = line
    else:
        # What a web app's callback handler does with the URL the browser came back on.
        result["authorization_response"] = session.parse_authorization_response(line)
        verifier = None

    access_token = session.fetch_access_token(server + "/oauth/access_token", verifier=verifier)
    result["access_token"] = access_token

    verify_url = server + "/1.1/account/verify_credentials.json"
    result["verify"] = answer(session.get(verify_url))
    result["invalidate"] = answer(session.post(server + "/1.1/oauth/invalidate_token.json"))
    result["after"] = answer(session.get(verify_url))
    return result


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    server, key, secret, callback = sys.argv[1:]
    try:
        result = run(server.rstrip("/"), key, secret, callback)
    except Exception as error:  # noqa: BLE001 - every failure is reported to the Node test
        print("RESULT " + json.dumps({"error": repr(error), "traceback": traceback.format_exc()}), flush=True)
        return 1
    print("RESULT " + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
