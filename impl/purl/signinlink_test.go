package purl

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestPageSignInLink: the page of a group-restricted object links the
// site's sign-in, returning to the page, when the site has one; without a
// sign-in, and for a location-only object, there is no link to follow.
func TestPageSignInLink(t *testing.T) {
	signedIn := newFixture(t, func(c *Config) {
		c.Sessions = testSessions
		c.SignInURL = "http://purl.test/auth/login"
	})
	resp, page := signedIn.get(t, "/bn888yz8888")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	want := `<a id="sign-in" class="sign-in" href="http://purl.test/auth/login?return=http%3a%2f%2fpurl.test%2fpurl%2fbn888yz8888">Sign in</a>`
	if !strings.Contains(strings.ToLower(string(page)), strings.ToLower(want)) {
		t.Errorf("no sign-in link %s on the restricted page", want)
	}
	if resp, page := signedIn.get(t, "/bb000kk0000"); resp.StatusCode != http.StatusOK || strings.Contains(string(page), `id="sign-in"`) {
		t.Errorf("an open object's page: %d, with a sign-in link %v", resp.StatusCode, strings.Contains(string(page), `id="sign-in"`))
	}
	plain := newFixture(t)
	if _, page := plain.get(t, "/bn888yz8888"); strings.Contains(string(page), `id="sign-in"`) {
		t.Error("a sign-in link without a site sign-in")
	}
}

// TestPageLeavesOutEmptySections: a record that says nothing but its
// title (Dublin Core only) gets no empty "Description" or "Access and use"
// heading; a described one keeps both.
func TestPageLeavesOutEmptySections(t *testing.T) {
	f := newFixture(t)
	const id = "bb301cd3001"
	for _, name := range []string{"a.png", "b.txt"} {
		if _, err := f.svc.store.Write(context.Background(), id, name, bytes.NewReader([]byte("abc"))); err != nil {
			t.Fatal(err)
		}
	}
	if resp, body := f.do(t, http.MethodPut, "/"+id+".xml", []byte(rightsRecord(id, discoverWorld+read(`<world/>`))), xmlType, bearer("pub")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	_, bare := f.get(t, "/"+id)
	for _, heading := range []string{`id="description-heading"`, `id="access-heading"`} {
		if strings.Contains(string(bare), heading) {
			t.Errorf("an empty section %s on the page of a record with only a title", heading)
		}
	}
	_, described := f.get(t, "/bb000kk0000")
	for _, heading := range []string{`id="description-heading"`, `id="access-heading"`} {
		if !strings.Contains(string(described), heading) {
			t.Errorf("no %s on a described record's page", heading)
		}
	}
}
