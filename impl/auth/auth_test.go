package auth

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAddAndAuthenticate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	toks, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := toks.Authenticate("anything"); ok {
		t.Fatal("empty store accepted a token")
	}
	plain, err := toks.Add("hours desk", []string{"editor:green"})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := toks.Authenticate(plain)
	if !ok || p.Name != "hours desk" {
		t.Fatalf("Authenticate(new token) = %+v, %v", p, ok)
	}
	if !p.CanEditLibrary("green") || p.CanEditLibrary("music") || p.CanPublish() || p.IsAdmin() {
		t.Errorf("editor:green roles wrong: %+v", p)
	}
	if _, ok := toks.Authenticate(plain + "x"); ok {
		t.Error("a changed token was accepted")
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), plain) {
		t.Error("token file holds the plaintext token")
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}

	// A second handle (another process) sees the new token without reopening.
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := other.Add("ops", []string{"admin"})
	if err != nil {
		t.Fatal(err)
	}
	p, ok = toks.Authenticate(admin)
	if !ok || !p.IsAdmin() || !p.CanPublish() || !p.CanEditLibrary("any") {
		t.Errorf("first handle did not pick up the admin token: %+v %v", p, ok)
	}
}

func TestAddRejects(t *testing.T) {
	toks, err := Open(filepath.Join(t.TempDir(), "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		roles []string
	}{
		{"", []string{"admin"}},
		{"x", nil},
		{"x", []string{"root"}},
		{"x", []string{"editor:"}},
		{"x", []string{"editor:Bad Slug"}},
		{"x", []string{"group:"}},
		{"x", []string{"location:a/b"}},
	} {
		if _, err := toks.Add(tc.name, tc.roles); err == nil {
			t.Errorf("Add(%q, %v) succeeded", tc.name, tc.roles)
		}
	}
}

func TestScopedRoles(t *testing.T) {
	for _, role := range []string{"group:sitelib", "location:reading-room", "editor:law", "publisher", "admin"} {
		if !ValidRole(role) {
			t.Errorf("ValidRole(%q) = false", role)
		}
	}
	p := Principal{Name: "reader", Roles: []string{"group:sitelib"}}
	if !p.Has("group:sitelib") || p.Has("location:reading-room") || p.CanPublish() {
		t.Errorf("group member roles wrong: %+v", p)
	}
}

func TestBearerToken(t *testing.T) {
	for header, want := range map[string]string{
		"Bearer abc":  "abc",
		"bearer  abc": "abc",
		"Basic abc":   "",
		"Bearer":      "",
		"":            "",
	} {
		r, _ := http.NewRequest("GET", "/", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		got, ok := BearerToken(r)
		if got != want || ok != (want != "") {
			t.Errorf("BearerToken(%q) = %q, %v; want %q", header, got, ok, want)
		}
	}
}
