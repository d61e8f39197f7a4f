package representation

import (
	"mime"
	"strconv"
	"strings"
)

// AcceptItem is one element of an Accept (or Accept-Encoding) field: a
// media range ("text/html", "text/*", "*/*", lower-cased) or a coding
// ("gzip"), its parameters without q, and its quality.
type AcceptItem struct {
	Value  string
	Params map[string]string
	Q      float64
}

// ParseAccept is the one parser of the Accept family of fields (RFC 9110
// §12.5): the items of every value of the field, in order. An item whose
// media type or q cannot be read says nothing and is skipped, as is one
// with q outside 0…1. Every service negotiates through it (AcceptQuality,
// Prefers, AcceptsEncoding, Hours' JSON:API rule).
func ParseAccept(values []string) []AcceptItem {
	var items []AcceptItem
	for _, header := range values {
		for _, raw := range strings.Split(header, ",") {
			raw = strings.TrimSpace(raw)
			if raw == "" {
				continue
			}
			value, params, err := mime.ParseMediaType(raw)
			if err != nil {
				// A coding (Accept-Encoding: "gzip;q=0.5") has no slash,
				// which ParseMediaType accepts; anything else it refuses
				// is unreadable.
				continue
			}
			q := 1.0
			if v, ok := params["q"]; ok {
				if q, err = strconv.ParseFloat(v, 64); err != nil || q < 0 || q > 1 {
					continue
				}
				delete(params, "q")
			}
			items = append(items, AcceptItem{Value: value, Params: params, Q: q})
		}
	}
	return items
}

// AcceptQuality is the highest quality (q, 0 to 1) that the Accept header
// values give any of mediaTypes, named explicitly: wildcards count for none
// of them, so a browser's "text/html, …, */*" does not rate JSON. 0 when
// none is named. The services use it to choose between representations of
// one URL (a page or JSON, JSON-LD or a page).
func AcceptQuality(accept []string, mediaTypes ...string) float64 {
	q, _ := acceptRank(accept, mediaTypes)
	return q
}

// acceptRank is AcceptQuality and the position of the first item naming
// one of mediaTypes (-1 when none does).
func acceptRank(accept []string, mediaTypes []string) (float64, int) {
	best, first := 0.0, -1
	for i, item := range ParseAccept(accept) {
		for _, want := range mediaTypes {
			if item.Value == want {
				best = max(best, item.Q)
				if first < 0 {
					first = i
				}
			}
		}
	}
	return best, first
}

// Prefers reports whether Accept rates one of these media types (named
// explicitly, at q > 0) above every one of others; on equal quality the
// one named first wins.
func Prefers(accept []string, these, others []string) bool {
	q, at := acceptRank(accept, these)
	if q == 0 {
		return false
	}
	oq, oat := acceptRank(accept, others)
	return q > oq || (q == oq && at < oat)
}

// AcceptsEncoding reports whether an Accept-Encoding field allows coding
// (RFC 9110 §12.5.3): the quality of the coding where it is named ("x-gzip"
// names gzip, §8.4.1.3), else that of "*", must be above 0; a coding the
// field does not name, by name or "*", is not accepted.
func AcceptsEncoding(acceptEncoding []string, coding string) bool {
	named, wildcard := -1.0, -1.0
	for _, item := range ParseAccept(acceptEncoding) {
		switch {
		case strings.EqualFold(item.Value, coding) || (strings.EqualFold(coding, "gzip") && strings.EqualFold(item.Value, "x-gzip")):
			named = max(named, item.Q)
		case item.Value == "*":
			wildcard = max(wildcard, item.Q)
		}
	}
	if named >= 0 {
		return named > 0
	}
	return wildcard > 0
}
