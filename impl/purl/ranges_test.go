package purl

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// No response amplification by ranges (issue 11.11): overlapping and
// nearly adjacent ranges are merged, and more than apiserve.MaxRanges
// distinct ranges are answered whole. Files (streamed) and records
// (prepared) alike.
func TestRangesAreCoalesced(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	byteByByte := make([]string, 2000)
	for i := range byteByByte {
		byteByByte[i] = fmt.Sprintf("%d-%d", i, i)
	}
	spread := make([]string, 20)
	for i := range spread {
		spread[i] = fmt.Sprintf("%d-%d", i*100, i*100)
	}
	for _, path := range []string{"/bb000kk0000/file/reading-room-north.png", "/bb000kk0000.xml"} {
		_, whole := f.raw(t, http.MethodGet, path)
		size := len(whole)
		for _, tc := range []struct {
			name, ranges string
			status       int
			maxLen       int
			contentRange string
		}{
			{"2000 one-byte ranges", strings.Join(byteByByte, ","), 206, 2000, "bytes 0-1999/"},
			{"overlapping", "0-100,50-150,20-30", 206, 151, "bytes 0-150/"},
			{"20 ranges 100 bytes apart", strings.Join(spread, ","), 200, size, ""},
			{"two far apart", "0-9,1500-1509", 206, 600, ""},
		} {
			resp, body := f.raw(t, http.MethodGet, path, "Range: bytes="+tc.ranges)
			if resp.StatusCode != tc.status || len(body) > tc.maxLen {
				t.Errorf("%s, %s: %d with %d bytes, want %d with at most %d", path, tc.name, resp.StatusCode, len(body), tc.status, tc.maxLen)
			}
			if tc.contentRange != "" && !strings.HasPrefix(resp.Header.Get("Content-Range"), tc.contentRange) {
				t.Errorf("%s, %s: Content-Range %q", path, tc.name, resp.Header.Get("Content-Range"))
			}
		}
	}
}
