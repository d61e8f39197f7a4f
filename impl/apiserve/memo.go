package apiserve

import (
	"container/list"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
)

// verdictMemo remembers GET and HEAD requests that passed validation, so an
// identical request skips validating again. A verdict depends on the method,
// path and query, on the header parameters the operation declares, and on
// credentials; so only operations without security requirements or cookie
// parameters are remembered, keyed by method, path, query and the values of
// the operation's declared headers, for requests without credentials,
// cookies or a body. Cached reads (oEmbed, hours, PURL records) repeat the
// same URL many times, and validation is most of their cost.
type verdictMemo struct {
	router routers.Router
	spec   *openapi3.T
	max    int

	mu      sync.Mutex
	order   *list.List // of *memoEntry, most recent first
	entries map[string]*list.Element

	hits atomic.Int64 // for tests
}

type memoEntry struct {
	key string
	// For a URL key: whether its operation's verdict can be remembered, and
	// the header parameters that verdict depends on.
	shape *urlShape
}

type urlShape struct {
	rememberable bool
	headers      []string
}

// maxMemoKey bounds the URLs remembered; longer ones are validated each time.
const maxMemoKey = 2048

func newVerdictMemo(spec *openapi3.T, router routers.Router, max int) *verdictMemo {
	return &verdictMemo{router: router, spec: spec, max: max, order: list.New(), entries: map[string]*list.Element{}}
}

// key is the URL key of r, or "" when r's verdict must not be remembered.
func (m *verdictMemo) key(r *http.Request) string {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return ""
	}
	if r.ContentLength != 0 || r.Header.Get("Authorization") != "" || r.Header.Get("Cookie") != "" {
		return ""
	}
	path := r.URL.EscapedPath()
	if len(path)+len(r.URL.RawQuery) > maxMemoKey {
		return ""
	}
	return r.Method + " " + path + "?" + r.URL.RawQuery
}

// verdictKey extends a URL key with the values of the headers the verdict
// depends on.
func verdictKey(urlKey string, shape *urlShape, r *http.Request) string {
	if len(shape.headers) == 0 {
		return "V " + urlKey
	}
	var b strings.Builder
	b.WriteString("V ")
	b.WriteString(urlKey)
	for _, h := range shape.headers {
		b.WriteByte(0)
		b.WriteString(strings.Join(r.Header.Values(h), "\x01"))
	}
	return b.String()
}

func (m *verdictMemo) lookup(key string) (*memoEntry, bool) {
	el, ok := m.entries[key]
	if !ok {
		return nil, false
	}
	m.order.MoveToFront(el)
	return el.Value.(*memoEntry), true
}

func (m *verdictMemo) store(e *memoEntry) {
	if el, ok := m.entries[e.key]; ok {
		el.Value = e
		m.order.MoveToFront(el)
		return
	}
	m.entries[e.key] = m.order.PushFront(e)
	for m.order.Len() > m.max {
		oldest := m.order.Back()
		m.order.Remove(oldest)
		delete(m.entries, oldest.Value.(*memoEntry).key)
	}
}

// passed reports whether r (with URL key urlKey) is remembered as valid.
func (m *verdictMemo) passed(urlKey string, r *http.Request) bool {
	if urlKey == "" {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	shape, ok := m.lookup("U " + urlKey)
	if !ok || !shape.shape.rememberable {
		return false
	}
	if _, ok := m.lookup(verdictKey(urlKey, shape.shape, r)); !ok {
		return false
	}
	m.hits.Add(1)
	return true
}

// remember records that r (with URL key urlKey) passed validation.
func (m *verdictMemo) remember(urlKey string, r *http.Request) {
	if urlKey == "" {
		return
	}
	m.mu.Lock()
	entry, known := m.lookup("U " + urlKey)
	m.mu.Unlock()
	var shape *urlShape
	if known {
		shape = entry.shape
	} else {
		// Matching the route is what the memo saves, so it is done once per
		// URL, whatever the answer.
		shape = m.shapeOf(r)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !known {
		m.store(&memoEntry{key: "U " + urlKey, shape: shape})
	}
	if shape.rememberable {
		m.store(&memoEntry{key: verdictKey(urlKey, shape, r)})
	}
}

func (m *verdictMemo) shapeOf(r *http.Request) *urlShape {
	route, _, err := m.router.FindRoute(r)
	if err != nil {
		return &urlShape{}
	}
	security := route.Operation.Security
	if security == nil {
		security = &m.spec.Security
	}
	if len(*security) > 0 {
		return &urlShape{}
	}
	shape := &urlShape{rememberable: true}
	params := append(openapi3.Parameters{}, route.PathItem.Parameters...)
	params = append(params, route.Operation.Parameters...)
	for _, p := range params {
		switch {
		case p.Value == nil || p.Value.In == openapi3.ParameterInCookie:
			return &urlShape{}
		case p.Value.In == openapi3.ParameterInHeader:
			shape.headers = append(shape.headers, p.Value.Name)
		}
	}
	return shape
}
