package testkit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// SendEndless gets the answer of a server that refuses without reading the
// body, with the headers it was given, and the endless body really is sent:
// a server that reads some of it sees spaces.
func TestSendEndless(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer ok" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		buf := make([]byte, 1<<20)
		n, _ := io.ReadFull(r.Body, buf)
		for _, b := range buf[:n] {
			if b != ' ' {
				http.Error(w, "not a space", http.StatusBadRequest)
				return
			}
		}
		http.Error(w, "too large", http.StatusRequestEntityTooLarge)
	}))
	defer srv.Close()

	resp, body := SendEndless(t, http.MethodPost, srv.URL, http.Header{"Content-Type": {"application/xml"}})
	if resp.StatusCode != http.StatusUnauthorized || string(body) != "no\n" {
		t.Errorf("without a token: %d %q, want 401", resp.StatusCode, body)
	}
	resp, body = SendEndless(t, http.MethodPut, srv.URL, http.Header{"Authorization": {"Bearer ok"}})
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("with a token, after reading 1 MiB: %d %q, want 413", resp.StatusCode, body)
	}
}
