package apiserve

import (
	"mime"
	"strconv"
	"strings"
)

// AcceptQuality is the highest quality (q, 0 to 1) that the Accept header
// values give any of mediaTypes, named explicitly: wildcards count for none
// of them, so a browser's "text/html, …, */*" does not rate JSON. 0 when
// none is named. An item whose media type or q cannot be read says nothing
// and is skipped. The services use it to choose between representations of
// one URL (a page or JSON, JSON-LD or a page).
func AcceptQuality(accept []string, mediaTypes ...string) float64 {
	best := 0.0
	for _, header := range accept {
		for _, item := range strings.Split(header, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(item))
			if err != nil {
				continue
			}
			q := 1.0
			if v, ok := params["q"]; ok {
				if q, err = strconv.ParseFloat(v, 64); err != nil {
					continue
				}
			}
			for _, want := range mediaTypes {
				if mt == want {
					best = max(best, q)
				}
			}
		}
	}
	return best
}
