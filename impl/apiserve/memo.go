package apiserve

import (
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	lru "github.com/hashicorp/golang-lru/v2"
)

// verdictMemo remembers GET and HEAD requests that passed validation, so an
// identical request skips validating again. A verdict depends on the method,
// path and query, on the header parameters the operation declares, and on
// credentials; so only operations without security requirements (or whose
// requirements let anonymous requests through, with credentials only in
// Authorization: anonymousByAuthorization) and without cookie parameters
// are remembered, keyed by method, path, query and the values of
// the operation's declared headers as sent, for requests without
// credentials, cookies or a body. A hit replays what validation writes into
// the request (parameter defaults). Cached reads (oEmbed, hours, PURL records) repeat the
// same URL many times, and validation is most of their cost.
type verdictMemo struct {
	router routers.Router
	spec   *openapi3.T

	// entries holds URL shapes (URL keys) and verdicts (verdict keys) in
	// one least-recently-used order, bounded by the memo's size.
	entries *lru.Cache[memoKey, *memoEntry]

	hits atomic.Int64 // for tests
}

// memoKey is an entry's key: a URL key (url only), or a verdict key (the
// URL key and the values of the URL's declared headers as sent). The
// values of up to inlineHeaders headers sent at most once each are the
// request's own strings in a fixed array, so the key of a request sending
// a declared header (a file's Range) is built without allocating; other
// requests' header values are encoded into one string.
type memoKey struct {
	url     string
	verdict bool
	// sent has bit i set when the shape's header i was sent (once), so an
	// absent header and one sent empty (which validation may refuse)
	// differ; values[i] is its value.
	sent   uint8
	values [inlineHeaders]string
	// encoded holds the values when they do not fit sent and values.
	encoded string
}

// inlineHeaders is how many declared headers a verdict key holds without
// encoding them.
const inlineHeaders = 4

// urlKey is the memo key of a URL key.
func urlKey(u string) memoKey { return memoKey{url: u} }

type memoEntry struct {
	key memoKey
	// For a URL key: whether its operation's verdict can be remembered, and
	// the header parameters that verdict depends on.
	shape *urlShape
	// For a URL key whose shape is rememberable: the verdict of a request
	// sending none of the declared headers (most requests), kept in the
	// URL's entry rather than under a key of its own, so a hit is one
	// lookup and builds no key.
	plain atomic.Pointer[memoEntry]
	// For a URL key: the route echo's router found for it, set once a
	// request of the URL was known valid (a hit), so later hits are not
	// routed again.
	route atomic.Pointer[echoRoute]
	// For a verdict: the query and the header values validation wrote into
	// the request, written again on a hit.
	query          string
	headerDefaults [][2]string
}

type urlShape struct {
	rememberable bool
	// headers are the declared header parameters' names, canonical.
	headers []string
	// operation is the operationId of the URL's route ("\x00none" when
	// the document has none).
	operation string
}

// noOperation is the operation of a URL the document does not have.
const noOperation = "\x00none"

// maxMemoKey bounds the URLs remembered, and the declared header values
// a verdict is remembered with; longer ones are validated each time.
const maxMemoKey = 2048

func newVerdictMemo(spec *openapi3.T, router routers.Router, max int) *verdictMemo {
	entries, err := lru.New[memoKey, *memoEntry](max)
	if err != nil {
		// Only a size below 1, which New never passes.
		panic("apiserve: verdict memo: " + err.Error())
	}
	return &verdictMemo{router: router, spec: spec, entries: entries}
}

// key is the URL key of r, or "" when r's verdict must not be remembered:
// a GET without a query is keyed by its path as sent (which starts with
// "/", so it never equals another key and building it allocates nothing),
// any other request by "U " + method, path and query.
func (m *verdictMemo) key(r *http.Request) string {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return ""
	}
	// "Authorization" and "Cookie" are canonical already: reading the map
	// is Header.Get without canonicalising on every request.
	if r.ContentLength != 0 || firstValue(r.Header["Authorization"]) != "" || firstValue(r.Header["Cookie"]) != "" {
		return ""
	}
	path := r.URL.EscapedPath()
	if len(path)+len(r.URL.RawQuery) > maxMemoKey {
		return ""
	}
	if r.Method == http.MethodGet && r.URL.RawQuery == "" && strings.HasPrefix(path, "/") {
		return path
	}
	return "U " + r.Method + " " + path + "?" + r.URL.RawQuery
}

// firstValue is what Header.Get returns for a header's values.
func firstValue(values []string) string {
	if len(values) == 0 {
		return ""
	}
	return values[0]
}

// memoTicket is what the memo learned about a request before validation:
// the key its verdict is remembered under (zero = never remembered) and the
// declared headers it lacked (validation may write their defaults).
type memoTicket struct {
	verdictKey memoKey
	absent     []string
	// shape is what the memo knows of r's URL (nil when it keeps none):
	// the edge reads the operation from it.
	shape *urlShape
	// url is the URL's entry, where the verdict of a request without any
	// declared header is kept (plain) and, on a hit, its route.
	url   *memoEntry
	plain bool
}

// verdictKey extends a URL key with the values of the headers the verdict
// depends on, as sent. The shape's header names are canonical, so reading
// r.Header directly is Header.Values without canonicalising each time.
func verdictKey(uKey string, shape *urlShape, r *http.Request) memoKey {
	key := memoKey{url: uKey, verdict: true}
	if len(shape.headers) <= inlineHeaders {
		inline := true
		for i, h := range shape.headers {
			switch values := r.Header[h]; len(values) {
			case 0:
			case 1:
				key.sent |= 1 << i
				key.values[i] = values[0]
			default:
				inline = false
			}
		}
		if inline {
			return key
		}
		key.sent, key.values = 0, [inlineHeaders]string{}
	}
	// Each header's value count is written too, so an absent header and
	// one sent empty differ.
	var stack [256]byte
	b := stack[:0]
	for _, h := range shape.headers {
		values := r.Header[h]
		b = append(b, 0)
		b = strconv.AppendInt(b, int64(len(values)), 10)
		for _, v := range values {
			b = append(b, 1)
			b = append(b, v...)
		}
	}
	key.encoded = string(b)
	return key
}

// headersFit reports whether the values r sends for headers come to at
// most max bytes.
func headersFit(r *http.Request, headers []string, max int) bool {
	n := 0
	for _, h := range headers {
		for _, v := range r.Header[h] {
			n += len(v)
		}
	}
	return n <= max
}

// absentHeaders is which of the headers r lacks.
func absentHeaders(r *http.Request, headers []string) []string {
	var absent []string
	for _, h := range headers {
		if len(r.Header[h]) == 0 {
			absent = append(absent, h)
		}
	}
	return absent
}

// sendsNone reports whether r carries none of the headers.
func sendsNone(r *http.Request, headers []string) bool {
	for _, h := range headers {
		if len(r.Header[h]) > 0 {
			return false
		}
	}
	return true
}

// check looks r up before validation. It returns whether r is remembered as
// valid already and, when it is not, the ticket under which its verdict is
// remembered after it passes; on a hit it writes into r what validation would have (the
// defaults of absent query and header parameters), so the handler sees the
// same request either way.
func (m *verdictMemo) check(r *http.Request) (memoTicket, bool) {
	uKey := m.key(r)
	if uKey == "" {
		return memoTicket{}, false
	}
	entry, known := m.entries.Get(urlKey(uKey))
	if !known {
		// Matching the route is what the memo saves, so it is done once per
		// URL, whatever the answer.
		entry = &memoEntry{key: urlKey(uKey), shape: m.shapeOf(r)}
		m.entries.Add(entry.key, entry)
	}
	shape := entry.shape
	if !shape.rememberable {
		return memoTicket{shape: shape}, false
	}
	var verdict *memoEntry
	if sendsNone(r, shape.headers) {
		// Every declared header is absent: the verdict is the URL's own.
		if verdict = entry.plain.Load(); verdict == nil {
			return memoTicket{shape: shape, url: entry, plain: true, absent: shape.headers}, false
		}
	} else if !headersFit(r, shape.headers, maxMemoKey-len(uKey)) {
		// A verdict holds the values of the headers it depends on: long
		// ones are validated each time, as long URLs are, so anonymous
		// requests cannot fill the memo with megabytes of header values.
		return memoTicket{shape: shape}, false
	} else {
		vkey := verdictKey(uKey, shape, r)
		var ok bool
		if verdict, ok = m.entries.Get(vkey); !ok {
			return memoTicket{verdictKey: vkey, absent: absentHeaders(r, shape.headers), shape: shape}, false
		}
	}
	if r.URL.RawQuery != verdict.query {
		r.URL.RawQuery = verdict.query
	}
	for _, h := range verdict.headerDefaults {
		r.Header.Add(h[0], h[1])
	}
	m.hits.Add(1)
	// The lookup already made the verdict the most recent: a ticket
	// without a key spares the hit a second store.
	return memoTicket{shape: shape, url: entry}, true
}

// remembers reports whether the verdict of t's request is remembered once
// validation passed it.
func (t memoTicket) remembers() bool { return t.verdictKey.verdict || t.plain }

// remember records that the request of ticket t passed validation; r is
// the request as validation left it.
func (m *verdictMemo) remember(t memoTicket, r *http.Request) {
	if !t.remembers() {
		return
	}
	e := &memoEntry{key: t.verdictKey, query: r.URL.RawQuery}
	for _, h := range t.absent {
		for _, v := range r.Header.Values(h) {
			e.headerDefaults = append(e.headerDefaults, [2]string{h, v})
		}
	}
	if t.plain {
		t.url.plain.Store(e)
		return
	}
	m.entries.Add(e.key, e)
}

// anonymousByAuthorization reports whether requirements let a request
// without credentials through (one of them is empty) and every scheme
// they name reads its credentials from the Authorization header (http:
// bearer, basic). The memo keeps no request with Authorization or Cookie,
// so the verdict of one it keeps does not depend on credentials: a
// restricted file's anonymous reads (PURL's getFile) are remembered like
// any public read, a read with a token is validated each time.
func (m *verdictMemo) anonymousByAuthorization(requirements openapi3.SecurityRequirements) bool {
	if m.spec.Components == nil {
		return false
	}
	anonymous := false
	for _, req := range requirements {
		if len(req) == 0 {
			anonymous = true
		}
		for name := range req {
			scheme := m.spec.Components.SecuritySchemes[name]
			if scheme == nil || scheme.Value == nil || scheme.Value.Type != "http" {
				return false
			}
		}
	}
	return anonymous
}

func (m *verdictMemo) shapeOf(r *http.Request) *urlShape {
	route, _, err := m.router.FindRoute(r)
	if err != nil {
		return &urlShape{operation: noOperation}
	}
	op := route.Operation.OperationID
	security := route.Operation.Security
	if security == nil {
		security = &m.spec.Security
	}
	if len(*security) > 0 && !m.anonymousByAuthorization(*security) {
		return &urlShape{operation: op}
	}
	shape := &urlShape{rememberable: true, operation: op}
	params := append(openapi3.Parameters{}, route.PathItem.Parameters...)
	params = append(params, route.Operation.Parameters...)
	for _, p := range params {
		switch {
		case p.Value == nil || p.Value.In == openapi3.ParameterInCookie:
			return &urlShape{operation: op}
		case p.Value.In == openapi3.ParameterInHeader:
			// Canonical once here, so each request reads r.Header directly.
			shape.headers = append(shape.headers, textproto.CanonicalMIMEHeaderKey(p.Value.Name))
		}
	}
	return shape
}
