package representation

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Limits of a Range request (docs/architecture.md, "Ranges"). RFC 9110
// §14.2 lets a server coalesce ranges or ignore the field: overlapping or
// nearly adjacent ranges are merged, so that a reply is never larger than
// a few part headers beyond the bytes asked for, and a request with more
// ranges than MaxRanges after merging is answered whole (200), as if it
// carried no Range.
const (
	// MaxRanges is the most ranges one reply carries.
	MaxRanges = 16
	// rangeGap is the largest gap between two ranges that are merged: a
	// multipart part's own header is about this long, so sending the gap
	// costs no more than another part.
	rangeGap = 80
)

// ServeContent is http.ServeContent with the Range field tidied first
// (TidyRanges): every file and prepared representation goes through it.
func ServeContent(w http.ResponseWriter, r *http.Request, name string, modtime time.Time, content io.ReadSeeker) {
	if field := r.Header.Get("Range"); field != "" && !strings.HasPrefix(field, "bytes=") {
		// RFC 9110 §14.2: a server MUST ignore a Range of a unit it does
		// not understand (http.ServeContent answers 416).
		r = r.Clone(r.Context())
		r.Header.Del("Range")
	}
	if r.Header.Get("Range") != "" {
		if size, err := content.Seek(0, io.SeekEnd); err == nil {
			if _, err := content.Seek(0, io.SeekStart); err == nil {
				r = TidyRanges(r, size)
			}
		}
	}
	http.ServeContent(w, r, name, modtime, content)
}

// TidyRanges returns r, or a copy of it whose Range field names the same
// bytes of a representation of size bytes in ascending, merged ranges, or
// none at all when more than MaxRanges remain. A field it cannot parse, or
// one no range of which can be satisfied, is left to http.ServeContent
// (which ignores it or answers 416).
func TidyRanges(r *http.Request, size int64) *http.Request {
	field := r.Header.Get("Range")
	spec, ok := strings.CutPrefix(field, "bytes=")
	if !ok || !strings.Contains(spec, ",") {
		return r // one range (or not bytes): nothing to merge
	}
	type span struct{ start, end int64 } // end inclusive
	var spans []span
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		first, last, ok := strings.Cut(part, "-")
		if !ok {
			return r
		}
		var s span
		switch {
		case first == "":
			n, err := strconv.ParseInt(last, 10, 64)
			if err != nil || n < 0 {
				return r
			}
			if n == 0 {
				continue // unsatisfiable suffix
			}
			s = span{max(size-n, 0), size - 1}
		default:
			a, err := strconv.ParseInt(first, 10, 64)
			if err != nil || a < 0 {
				return r
			}
			b := size - 1
			if last != "" {
				if b, err = strconv.ParseInt(last, 10, 64); err != nil || b < a {
					return r
				}
			}
			if a >= size {
				continue // unsatisfiable
			}
			s = span{a, min(b, size-1)}
		}
		spans = append(spans, s)
	}
	if len(spans) == 0 {
		return r
	}
	slices.SortFunc(spans, func(x, y span) int {
		switch {
		case x.start < y.start:
			return -1
		case x.start > y.start:
			return 1
		}
		return 0
	})
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.start <= last.end+1+rangeGap {
			last.end = max(last.end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	out := r.Clone(r.Context())
	if len(merged) > MaxRanges {
		out.Header.Del("Range")
		return out
	}
	parts := make([]string, len(merged))
	for i, s := range merged {
		parts[i] = fmt.Sprintf("%d-%d", s.start, s.end)
	}
	out.Header.Set("Range", "bytes="+strings.Join(parts, ","))
	return out
}
