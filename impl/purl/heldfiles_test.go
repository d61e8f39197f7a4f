package purl

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitelib/sitesvc/impl/heldbytes"
	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestHeldFiles: a small file anyone may read is held in memory once
// served and answered from there exactly as from disk (body, validators,
// Range, 304, HEAD, every header); a restricted file is never held; the
// bytes held are bounded and let go when the object leaves the cache.
func TestHeldFiles(t *testing.T) {
	t.Parallel()
	const path = "/bb000kk0000/file/reading-room-north.png"
	onDisk := testkit.RepoFile(t, "samples/purl/bb000kk0000/reading-room-north.png")
	held := newFixture(t)
	disk := newFixture(t)
	disk.svc.heldFiles = nil // served from disk, as before holding
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
	if got := heldBytes(held.svc); got != int64(len(onDisk)) {
		t.Errorf("%d bytes held after serving a %d-byte file, want them all", got, len(onDisk))
	}
	if got := heldBytes(disk.svc); got != 0 {
		t.Errorf("%d bytes held with no room to hold", got)
	}
	// In /metrics (the service's collector).
	for name, want := range map[string]float64{"bytes": float64(len(onDisk)), "items": 1, "max_bytes": float64(HeldFileLimits.Bytes), "max_items": float64(HeldFileLimits.Items), "evictions_total": 0} {
		if got := heldMetricValue(t, held.svc, name, "files"); got != want {
			t.Errorf("sitesvc_purl_held_%s{kind=\"files\"} %v, want %v", name, got, want)
		}
	}
	if got := heldMetricValue(t, held.svc, "max_bytes", "tiles"); got != float64(iiifimage.HeldLimits.Bytes) {
		t.Errorf("sitesvc_purl_held_max_bytes{kind=\"tiles\"} %v", got)
	}
	heldResp, _ := held.get(t, path)
	if resp, _ := held.get(t, path, "If-None-Match: "+heldResp.Header.Get("Etag")); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match on a held file: %d", resp.StatusCode)
	}
	if resp, body := held.raw(t, http.MethodHead, path); resp.StatusCode != http.StatusOK || len(body) != 0 || resp.Header.Get("Content-Length") != heldResp.Header.Get("Content-Length") {
		t.Errorf("HEAD of a held file: %d, %d bytes", resp.StatusCode, len(body))
	}

	// A restricted file is not held (its rights are decided per request).
	before := heldBytes(held.svc)
	if resp, _ := held.get(t, "/bn888yz8888/file/floor-plan.png", bearer("member")); resp.StatusCode != http.StatusOK {
		t.Fatalf("restricted file as a member: %d", resp.StatusCode)
	}
	if got := heldBytes(held.svc); got != before {
		t.Errorf("a restricted file was held (%d → %d bytes)", before, got)
	}
	// The object leaves the cache (a write): its files are let go.
	held.svc.forget("bb000kk0000")
	if got := heldBytes(held.svc); got != 0 {
		t.Errorf("%d bytes still held after the object left the cache", got)
	}
	// Over the bound a file is served from disk and not held.
	limits := HeldFileLimits
	limits.Bytes = int64(len(onDisk)) - 1
	var err error
	if held.svc.heldFiles, err = heldbytes.New[heldKey, *heldFile](limits, nil); err != nil {
		t.Fatal(err)
	}
	resp, body := held.get(t, path)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, onDisk) {
		t.Errorf("over the bound: %d, %d bytes", resp.StatusCode, len(body))
	}
	for _, h := range []string{"Etag", "Last-Modified"} {
		if resp.Header.Get(h) != heldResp.Header.Get(h) || resp.Header.Get(h) == "" {
			t.Errorf("%s %q from disk, %q held", h, resp.Header.Get(h), heldResp.Header.Get(h))
		}
	}
	if got := heldBytes(held.svc); got != 0 {
		t.Errorf("%d bytes held past the bound of %d", got, limits.Bytes)
	}
}

// heldBytes is the bytes of the files s holds (0 when it holds none).
func heldBytes(s *Service) int64 {
	if s.heldFiles == nil {
		return 0
	}
	return s.heldFiles.Stats().Bytes
}

// heldMetricValue is the value of sitesvc_purl_held_<name>{kind=kind} that s
// reports to /metrics.
func heldMetricValue(t *testing.T, s *Service, name, kind string) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(s)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "sitesvc_purl_held_"+name {
			continue
		}
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == kind {
				if c := m.GetCounter(); c != nil {
					return c.GetValue()
				}
				return m.GetGauge().GetValue()
			}
		}
	}
	t.Fatalf("no sitesvc_purl_held_%s{kind=%q}", name, kind)
	return 0
}

// TestHeldFilesWhileObjectsLeave (run with -race): files read while their
// object leaves the cache again and again are all answered whole, and once
// the object has left, nothing of it is held: a file held by a request
// that raced with the object's retirement is let go too.
func TestHeldFilesWhileObjectsLeave(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	names := []string{"reading-room-north.png", "reading-room-south.png"}
	want := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(f.samples, "bb000kk0000", n))
		if err != nil {
			t.Fatal(err)
		}
		want[n] = b
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 40 {
				n := names[(g+i)%len(names)]
				resp, err := http.Get(f.srv.URL + "/bb000kk0000/file/" + n)
				if err != nil {
					t.Error(err)
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || !bytes.Equal(body, want[n]) {
					t.Errorf("%s: %d, %d bytes (%v)", n, resp.StatusCode, len(body), err)
					return
				}
			}
		})
	}
	for range 40 {
		f.svc.forget("bb000kk0000")
		runtime.Gosched()
	}
	wg.Wait()
	f.svc.forget("bb000kk0000")
	if st := f.svc.heldFiles.Stats(); st.Bytes != 0 || st.Items != 0 {
		t.Errorf("held after the object left the cache: %+v", st)
	}
	// The race made certain: a file read for an object that left the
	// cache while it was read is answered, and not held.
	obj, err := f.svc.object(t.Context(), "bb000kk0000")
	if err != nil {
		t.Fatal(err)
	}
	f.svc.retire(obj)
	if h := f.svc.held(t.Context(), obj, names[0], "image/png"); h == nil || !bytes.Equal(h.content.Body(), want[names[0]]) {
		t.Errorf("a file read for a retired object: %v", h)
	}
	if st := f.svc.heldFiles.Stats(); st.Bytes != 0 || st.Items != 0 {
		t.Errorf("held for a retired object: %+v", st)
	}
}
