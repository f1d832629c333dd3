// A small API protected by Latchkey, in Go (standard library only).
//
// Every request is checked by POST /latchkey/check-request with the credentials of an app registered
// as a resource server (`latchkey app create --resource-server`). Run it with:
//
//	LATCHKEY_URL=https://auth.example.org LATCHKEY_CLIENT_ID=... LATCHKEY_CLIENT_SECRET=... \
//	PUBLIC_URL=https://api.example.org PORT=8000 go run api.go
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// Caller is who sent a request Latchkey accepted.
type Caller struct {
	TokenKind   string   `json:"token_kind"`
	AppID       string   `json:"app_id"`
	AppName     string   `json:"app_name"`
	AccessLevel string   `json:"access_level"`
	UserID      string   `json:"user_id,omitempty"`
	ScreenName  string   `json:"screen_name,omitempty"`
	Scopes      []string `json:"scopes,omitempty"`
}

// Refusal is X's answer to a request Latchkey refused, to pass on as it is.
type Refusal struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    json.RawMessage   `json:"body"`
}

type verdict struct {
	Valid   bool     `json:"valid"`
	Caller  *Caller  `json:"caller"`
	Refusal *Refusal `json:"refusal"`
}

var checker = &http.Client{Timeout: 5 * time.Second}

// checkRequest asks Latchkey who sent r; publicURL is this API's origin as its clients address it.
func checkRequest(r *http.Request, publicURL string) (*verdict, error) {
	toCheck := map[string]any{"method": r.Method, "url": publicURL + r.URL.RequestURI(), "authorization": r.Header.Get("Authorization")}
	if contentType := r.Header.Get("Content-Type"); strings.HasPrefix(contentType, "application/x-www-form-urlencoded") {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		toCheck["body"], toCheck["content_type"] = string(body), contentType
	}
	payload, _ := json.Marshal(toCheck)
	check, _ := http.NewRequest(http.MethodPost, os.Getenv("LATCHKEY_URL")+"/latchkey/check-request", bytes.NewReader(payload))
	check.SetBasicAuth(os.Getenv("LATCHKEY_CLIENT_ID"), os.Getenv("LATCHKEY_CLIENT_SECRET"))
	check.Header.Set("Content-Type", "application/json")
	answer, err := checker.Do(check)
	if err != nil {
		return nil, err
	}
	defer answer.Body.Close()
	if answer.StatusCode != http.StatusOK { // the check itself failed: never let the request through
		return nil, fmt.Errorf("the check answered %d", answer.StatusCode)
	}
	var result verdict
	return &result, json.NewDecoder(answer.Body).Decode(&result)
}

func reply(w http.ResponseWriter, status int, headers map[string]string, body any) {
	for name, value := range headers {
		w.Header().Set(name, value)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

func main() {
	publicURL := os.Getenv("PUBLIC_URL")
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		result, err := checkRequest(r, publicURL)
		switch {
		case err != nil:
			reply(w, http.StatusServiceUnavailable, nil, map[string]any{"errors": []map[string]any{{"code": 130, "message": "Over capacity"}}})
		case !result.Valid:
			reply(w, result.Refusal.Status, result.Refusal.Headers, result.Refusal.Body)
		default:
			hello := result.Caller.ScreenName
			if hello == "" {
				hello = result.Caller.AppName
			}
			reply(w, http.StatusOK, nil, map[string]any{"hello": hello, "caller": result.Caller})
		}
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "8000"
	}
	listener, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		panic(err)
	}
	fmt.Printf("listening on http://%s\n", listener.Addr())
	panic(http.Serve(listener, nil))
}
