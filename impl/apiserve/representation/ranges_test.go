package representation

import (
	"fmt"
	"net/http"
	"testing"
)

func TestTidyRanges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"bytes=0-9", "bytes=0-9"},                         // one range: untouched
		{"bytes=0-9,5-20", "bytes=0-20"},                   // overlap
		{"bytes=500-509,0-9", "bytes=0-9,500-509"},         // sorted
		{"bytes=0-9,50-59", "bytes=0-59"},                  // gap under rangeGap
		{"bytes=-10,0-0", "bytes=0-0,990-999"},             // suffix
		{"bytes=0-0,5000-6000", "bytes=0-0"},               // unsatisfiable part dropped
		{"bytes=5000-6000,7000-", "bytes=5000-6000,7000-"}, // none satisfiable: left for 416
		{"bytes=x-1,2-3", "bytes=x-1,2-3"},                 // unparsable: left alone
	} {
		r, _ := http.NewRequest(http.MethodGet, "http://x/", nil)
		r.Header.Set("Range", tc.in)
		if got := TidyRanges(r, 1000).Header.Get("Range"); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.in, got, tc.want)
		}
		if r.Header.Get("Range") != tc.in {
			t.Errorf("%s: the request itself was changed", tc.in)
		}
	}
	// More than MaxRanges distinct ranges: answered whole.
	field := "bytes=0-0"
	for i := 1; i <= MaxRanges; i++ {
		field += fmt.Sprintf(",%d-%d", i*100, i*100)
	}
	r, _ := http.NewRequest(http.MethodGet, "http://x/", nil)
	r.Header.Set("Range", field)
	if got := TidyRanges(r, 10000).Header.Get("Range"); got != "" {
		t.Errorf("%d ranges: %q, want none", MaxRanges+1, got)
	}
}
