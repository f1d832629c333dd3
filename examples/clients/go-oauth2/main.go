// golang.org/x/oauth2 against Latchkey: X's endpoints are only URLs in an oauth2.Endpoint.
//
//	go run . pkce LATCHKEY_URL CLIENT_ID CLIENT_SECRET REDIRECT_URI
//	  authorization code with PKCE (S256): prints "AUTHORIZE <url>"; open it, allow, type the URL you
//	  were sent to and Enter; prints "USERNAME <name>" from /2/users/me with the user's token.
//	go run . app LATCHKEY_URL CONSUMER_KEY CONSUMER_SECRET
//	  app-only bearer token (client credentials at /oauth2/token): prints "TOKEN_TYPE <type>" and
//	  "RATE_LIMIT_STATUS <http status>" of /1.1/application/rate_limit_status.json with it.
//
// Debian's golang.org/x/oauth2 is 0.3.0, before its PKCE helpers (GenerateVerifier, S256ChallengeOption,
// VerifierOption came in 0.13): the verifier and its S256 challenge are made here by hand.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

func main() {
	if len(os.Args) < 5 {
		fail(fmt.Errorf("usage: pkce URL CLIENT_ID CLIENT_SECRET REDIRECT_URI | app URL CONSUMER_KEY CONSUMER_SECRET"))
	}
	base := strings.TrimRight(os.Args[2], "/")
	var err error
	switch os.Args[1] {
	case "pkce":
		if len(os.Args) < 6 {
			fail(fmt.Errorf("pkce needs REDIRECT_URI"))
		}
		err = pkce(base, os.Args[3], os.Args[4], os.Args[5])
	case "app":
		err = appOnly(base, os.Args[3], os.Args[4])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func pkce(base, clientID, clientSecret, redirectURI string) error {
	ctx := context.Background()
	conf := &oauth2.Config{
		ClientID:     clientID,
		ClientSecret: clientSecret,
		RedirectURL:  redirectURI,
		Scopes:       []string{"tweet.read", "users.read", "offline.access"},
		Endpoint: oauth2.Endpoint{
			AuthURL:   base + "/i/oauth2/authorize",
			TokenURL:  base + "/2/oauth2/token",
			AuthStyle: oauth2.AuthStyleInHeader, // a confidential client: HTTP Basic
		},
	}
	verifier := randomString(48)
	sum := sha256.Sum256([]byte(verifier))
	state := randomString(16)
	fmt.Println("AUTHORIZE " + conf.AuthCodeURL(state,
		oauth2.SetAuthURLParam("code_challenge", base64.RawURLEncoding.EncodeToString(sum[:])),
		oauth2.SetAuthURLParam("code_challenge_method", "S256")))

	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil {
		return err
	}
	redirected, err := url.Parse(strings.TrimSpace(line))
	if err != nil {
		return err
	}
	if redirected.Query().Get("state") != state {
		return fmt.Errorf("the state came back changed: %s", redirected)
	}
	token, err := conf.Exchange(ctx, redirected.Query().Get("code"), oauth2.SetAuthURLParam("code_verifier", verifier))
	if err != nil {
		return err
	}
	var me struct {
		Data struct{ Username string } `json:"data"`
	}
	if err := getJSON(conf.Client(ctx, token), base+"/2/users/me", &me); err != nil {
		return err
	}
	fmt.Println("USERNAME " + me.Data.Username)
	return nil
}

func appOnly(base, consumerKey, consumerSecret string) error {
	ctx := context.Background()
	conf := &clientcredentials.Config{ClientID: consumerKey, ClientSecret: consumerSecret, TokenURL: base + "/oauth2/token", AuthStyle: oauth2.AuthStyleInHeader}
	token, err := conf.Token(ctx)
	if err != nil {
		return err
	}
	fmt.Println("TOKEN_TYPE " + token.Type())
	response, err := oauth2.NewClient(ctx, oauth2.StaticTokenSource(token)).Get(base + "/1.1/application/rate_limit_status.json")
	if err != nil {
		return err
	}
	response.Body.Close()
	fmt.Printf("RATE_LIMIT_STATUS %d\n", response.StatusCode)
	return nil
}

func getJSON(client *http.Client, address string, into any) error {
	response, err := client.Get(address)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	if response.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", address, response.Status)
	}
	return json.NewDecoder(response.Body).Decode(into)
}

// randomString is n random bytes, base64url without padding: a PKCE verifier (43 to 128 characters) or a state.
func randomString(n int) string {
	buffer := make([]byte, n)
	if _, err := rand.Read(buffer); err != nil {
		fail(err)
	}
	return base64.RawURLEncoding.EncodeToString(buffer)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
