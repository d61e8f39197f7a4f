package purl

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/record"
)

const secret = "SECRET-OUTSIDE-THE-STORE"

// FuzzRequestPath sends arbitrary paths to the service: it never fails
// with a 5xx, answers 200 only for a real object representation, and never
// serves a byte of a file that is not a listed file of an object.
func FuzzRequestPath(f *testing.F) {
	fx := newFixture(f)
	root := fx.svc.fsStore.Root()
	for _, p := range []string{filepath.Join(root, "..", "secret.txt"), filepath.Join(root, "secret.txt"), filepath.Join(root, "bb", "000", "kk", "secret.txt"), filepath.Join(root, "bb", "000", "kk", "0000", ".secret")} {
		if err := os.WriteFile(p, []byte(secret), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for _, s := range []string{
		"bb000kk0000", "bb000kk0000.xml", "druid:bb000kk0000.mods", "bb000kk0000/iiif/manifest",
		"bb000kk0000/file/reading-room-north.png", "bb000kk0000/file/..%2Fsecret.txt", "bb000kk0000/file/.secret",
		"..%2Fsecret.txt", "bb%2F000%2Fkk%2Fsecret.txt", "bb000kk0000%00.xml", "bb000kk0000/file/%2e%2e%2f%2e%2e%2fsecret.txt",
	} {
		f.Add(s)
	}
	h := fx.svc.Handler()
	f.Fuzz(func(t *testing.T, path string) {
		u, err := url.Parse("/" + path)
		if err != nil || u.Host != "" || u.Scheme != "" {
			return
		}
		req := &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}, RemoteAddr: "192.0.2.1:1234"}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("GET %q: %d %s", path, rec.Code, rec.Body)
		}
		if strings.Contains(rec.Body.String(), secret) {
			t.Fatalf("GET %q served a file outside the objects", path)
		}
		if rec.Code == http.StatusOK && !apiserve.Published(u.Path) {
			// The identifier is the first segment, without the
			// representation's extension.
			seg, _, _ := strings.Cut(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
			id, err := url.PathUnescape(seg)
			if err != nil {
				t.Fatalf("GET %q: 200 for an unroutable path", path)
			}
			for _, ext := range []string{".html", ".xml", ".mods", ".zip"} {
				if base, ok := strings.CutSuffix(id, ext); ok {
					id = base
					break
				}
			}
			if _, err := druid.Parse(id); err != nil {
				t.Fatalf("GET %q: 200 for %q, not a druid", path, id)
			}
		}
	})
}

// FuzzPutPublicXML sends arbitrary bodies as a publisher: the answer is a
// success or a 400/422 refusal, a refusal leaves the served record as it
// was, and an accepted record is served as record.Ingest rewrites it
// (byte for byte when it is already in the seed's shape).
func FuzzPutPublicXML(f *testing.F) {
	fx := newFixture(f)
	orig, err := os.ReadFile(filepath.Join(fx.samples, "bb000kk0000", "public.xml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(orig)
	f.Add([]byte(citationRecord("bb000kk0000")))
	f.Add([]byte(strings.Replace(string(orig), "druid:bb000kk0000", "druid:bc123df4567", 1)))
	f.Add([]byte("<publicObject/>"))
	h := fx.svc.Handler()
	get := func() string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/bb000kk0000.xml", nil))
		return rec.Body.String()
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		before := get()
		req := httptest.NewRequest(http.MethodPut, "/bb000kk0000.xml", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/xml")
		req.Header.Set("Authorization", "Bearer pub")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		after := get()
		switch rec.Code {
		case http.StatusOK, http.StatusCreated:
			// Served in the seed's shape: what Ingest makes of it (the
			// body itself when it is already in that shape).
			// (read as the PUT reads it: the path's druid for a record
			// that names none, the store's file sizes, the service's clock)
			ctx := context.Background()
			in, err := record.IngestWith(ctx, body, record.IngestOptions{
				ID:  "bb000kk0000",
				Now: fx.now,
				Files: func(name string) (int64, error) {
					info, err := fx.svc.store.Stat(ctx, "bb000kk0000", name)
					if err != nil {
						return 0, err
					}
					return info.Size(), nil
				},
			})
			if err != nil {
				t.Fatalf("accepted a record Ingest refuses: %v", err)
			}
			if after != string(in.Data) {
				t.Fatalf("accepted record not served as ingested")
			}
		case http.StatusBadRequest, http.StatusUnprocessableEntity:
			if after != before {
				t.Fatalf("refused write (%d %s) changed the record", rec.Code, rec.Body)
			}
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}
