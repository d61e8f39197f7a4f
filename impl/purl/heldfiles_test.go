package purl

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestHeldFiles: a small file anyone may read is held in memory once
// served and answered from there exactly as from disk (body, validators,
// Range, 304, HEAD, every header); a restricted file is never held; the
// bytes held are bounded and let go when the object leaves the cache.
func TestHeldFiles(t *testing.T) {
	t.Parallel()
	const path = "/bb000kk0000/file/reading-room-north.png"
	onDisk, err := os.ReadFile(filepath.Join("..", "..", "samples", "purl", "bb000kk0000", "reading-room-north.png"))
	if err != nil {
		t.Fatal(err)
	}
	held := newFixture(t)
	disk := newFixture(t)
	disk.svc.heldMax = 0 // served from disk, as before holding
	for _, c := range []struct {
		name    string
		headers []string
	}{
		{"whole", nil},
		{"download", nil},
		{"range", []string{"Range: bytes=0-9"}},
		{"suffix range", []string{"Range: bytes=-5"}},
		{"beyond", []string{"Range: bytes=999999-"}},
	} {
		p := path
		if c.name == "download" {
			p += "?download=true"
		}
		hr, hb := held.get(t, p, c.headers...)
		dr, db := disk.get(t, p, c.headers...)
		if hr.StatusCode != dr.StatusCode || !bytes.Equal(hb, db) {
			t.Errorf("%s: held %d (%d bytes), from disk %d (%d bytes)", c.name, hr.StatusCode, len(hb), dr.StatusCode, len(db))
		}
		// (the validators are compared below on one store: the two
		// fixtures' copies of the file differ in time)
		for _, h := range []string{"Content-Type", "Content-Length", "Content-Range", "Content-Disposition", "Cache-Control", "Content-Security-Policy", "X-Content-Type-Options", "Accept-Ranges", "Vary"} {
			if hr.Header.Get(h) != dr.Header.Get(h) {
				t.Errorf("%s: %s %q held, %q from disk", c.name, h, hr.Header.Get(h), dr.Header.Get(h))
			}
		}
	}
	if got := held.svc.heldBytes.Load(); got != int64(len(onDisk)) {
		t.Errorf("%d bytes held after serving a %d-byte file, want them all", got, len(onDisk))
	}
	if got := disk.svc.heldBytes.Load(); got != 0 {
		t.Errorf("%d bytes held with no room to hold", got)
	}
	heldResp, _ := held.get(t, path)
	if resp, _ := held.get(t, path, "If-None-Match: "+heldResp.Header.Get("Etag")); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match on a held file: %d", resp.StatusCode)
	}
	if resp, body := held.raw(t, http.MethodHead, path); resp.StatusCode != http.StatusOK || len(body) != 0 || resp.Header.Get("Content-Length") != heldResp.Header.Get("Content-Length") {
		t.Errorf("HEAD of a held file: %d, %d bytes", resp.StatusCode, len(body))
	}

	// A restricted file is not held (its rights are decided per request).
	before := held.svc.heldBytes.Load()
	if resp, _ := held.get(t, "/bn888yz8888/file/floor-plan.png", bearer("member")); resp.StatusCode != http.StatusOK {
		t.Fatalf("restricted file as a member: %d", resp.StatusCode)
	}
	if got := held.svc.heldBytes.Load(); got != before {
		t.Errorf("a restricted file was held (%d → %d bytes)", before, got)
	}
	// The object leaves the cache (a write): its files are let go.
	held.svc.forget("bb000kk0000")
	if got := held.svc.heldBytes.Load(); got != 0 {
		t.Errorf("%d bytes still held after the object left the cache", got)
	}
	// Over the bound a file is served from disk and not held.
	held.svc.heldMax = int64(len(onDisk)) - 1
	resp, body := held.get(t, path)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, onDisk) {
		t.Errorf("over the bound: %d, %d bytes", resp.StatusCode, len(body))
	}
	for _, h := range []string{"Etag", "Last-Modified"} {
		if resp.Header.Get(h) != heldResp.Header.Get(h) || resp.Header.Get(h) == "" {
			t.Errorf("%s %q from disk, %q held", h, resp.Header.Get(h), heldResp.Header.Get(h))
		}
	}
	if got := held.svc.heldBytes.Load(); got != 0 {
		t.Errorf("%d bytes held past the bound of %d", got, held.svc.heldMax)
	}
}
