package representation

import (
	"net/http"
	"strconv"
	"strings"
)

// The conditional requests Content answers without http.ServeContent:
// the two a cache and a reader send again and again (a revalidation
// naming the tag it holds; the same first bytes of a file, read by every
// player, viewer and download manager). Each is answered only when the
// request carries nothing that could make http.ServeContent answer
// otherwise; anything else (several ranges, a range that does not parse
// or cannot be satisfied, a weak or other If-Range, If-Match,
// If-Unmodified-Since, If-Modified-Since without If-None-Match…) takes the
// general way. TestShortcutsAnswerAsServeContent compares both ways on
// every kind of request.

// preparedRange is the header values of one byte range of a Content.
type preparedRange struct {
	start, end   int64 // first and last byte
	contentRange []string
	length       []string
}

// serveShortcut answers r, a GET or HEAD with some conditional field,
// when it is one of the requests above, and reports whether it did.
// The representation's own fields are already set on w.
func (c *Content) serveShortcut(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	h := r.Header
	if has(h, "If-Match") || has(h, "If-Unmodified-Since") {
		return false // 412 is decided the general way
	}
	if inm, ok := h["If-None-Match"]; ok {
		// http.ServeContent reads the first field line; the tag as sent
		// matches (weakly and strongly alike), so the answer is 304
		// whatever else the request carries (RFC 9110 §13.2.2).
		if c.etag == nil || len(inm) == 0 || inm[0] != c.etag[0] {
			return false
		}
		c.writeNotModified(w)
		return true
	}
	if c.whole || has(h, "If-Modified-Since") {
		return false
	}
	if ir, ok := h["If-Range"]; ok {
		// Only the representation's own strong tag lets the range
		// through without a date or a weak tag to compare.
		if c.etag == nil || len(ir) == 0 || ir[0] != c.etag[0] || !strings.HasPrefix(ir[0], `"`) {
			return false
		}
	}
	ranges := h["Range"]
	if len(ranges) == 0 {
		return false
	}
	start, end, ok := oneRange(ranges[0], int64(len(c.body)))
	if !ok {
		return false
	}
	wh := w.Header()
	if _, typed := wh["Content-Type"]; !typed {
		return false // http.ServeContent would sniff the type
	}
	pr := c.lastRange.Load()
	if pr == nil || pr.start != start || pr.end != end {
		pr = c.prepareRange(start, end)
		c.lastRange.Store(pr)
	}
	if c.lastModified != nil {
		wh["Last-Modified"] = c.lastModified
	}
	wh["Content-Range"] = pr.contentRange
	wh["Accept-Ranges"] = acceptRanges
	wh["Content-Length"] = pr.length
	w.WriteHeader(http.StatusPartialContent)
	if r.Method != http.MethodHead {
		_, _ = w.Write(c.body[start : end+1])
	}
	return true
}

// writeNotModified is http.ServeContent's 304: no representation
// metadata but the validators, and no Last-Modified beside an ETag.
func (c *Content) writeNotModified(w http.ResponseWriter) {
	wh := w.Header()
	delete(wh, "Content-Type")
	delete(wh, "Content-Length")
	delete(wh, "Content-Encoding")
	delete(wh, "Last-Modified")
	if c.whole && wh["Accept-Ranges"] != nil {
		wh["Accept-Ranges"] = acceptNoRanges
	}
	w.WriteHeader(http.StatusNotModified)
}

// prepareRange formats the header values of the bytes start to end.
func (c *Content) prepareRange(start, end int64) *preparedRange {
	b := make([]byte, 0, 64)
	b = append(b, "bytes "...)
	b = strconv.AppendInt(b, start, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, end, 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(len(c.body)), 10)
	return &preparedRange{start: start, end: end,
		contentRange: []string{string(b)}, length: []string{strconv.FormatInt(end-start+1, 10)}}
}

// oneRange parses field as one satisfiable range of a representation of
// size bytes, written plainly ("bytes=first-last", "bytes=first-" or
// "bytes=-suffix", digits only), and returns its first and last byte. It
// reports false for anything else, which http.ServeContent answers: more
// than one range, spaces, a range that does not parse, a suffix of zero,
// a start past the end (416), an empty representation.
func oneRange(field string, size int64) (start, end int64, ok bool) {
	spec, found := strings.CutPrefix(field, "bytes=")
	if !found || size <= 0 {
		return 0, 0, false
	}
	first, last, found := strings.Cut(spec, "-")
	if !found {
		return 0, 0, false
	}
	if first == "" {
		n, ok := digits(last)
		if !ok || n == 0 {
			return 0, 0, false
		}
		return max(size-n, 0), size - 1, true
	}
	start, ok = digits(first)
	if !ok || start >= size {
		return 0, 0, false
	}
	if last == "" {
		return start, size - 1, true
	}
	end, ok = digits(last)
	if !ok || end < start {
		return 0, 0, false
	}
	return start, min(end, size-1), true
}

// digits parses s, one to eighteen decimal digits (no sign, no space: far
// below an int64's overflow).
func digits(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		d := s[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	return n, true
}

// has reports whether the request carries the field at all (even empty).
func has(h http.Header, name string) bool {
	_, ok := h[name]
	return ok
}
