package apiserve

import (
	"container/list"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
)

// verdictMemo remembers GET and HEAD requests that passed validation, so an
// identical request (same method, path and query) skips validating again.
// That is sound only where the verdict depends on nothing else: operations
// without security requirements and without header or cookie parameters,
// requests without credentials, cookies or a body. Cached reads (oEmbed,
// hours) repeat the same URL many times; validation is most of their cost.
type verdictMemo struct {
	router routers.Router
	spec   *openapi3.T
	max    int

	mu      sync.Mutex
	order   *list.List // of string keys, most recent first
	entries map[string]*list.Element

	hits atomic.Int64 // for tests
}

// maxMemoKey bounds the URLs remembered; longer ones are validated each time.
const maxMemoKey = 2048

func newVerdictMemo(spec *openapi3.T, router routers.Router, max int) *verdictMemo {
	return &verdictMemo{router: router, spec: spec, max: max, order: list.New(), entries: map[string]*list.Element{}}
}

// key is the memo key of r, or "" when r's verdict must not be remembered.
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

// passed reports whether key is remembered as valid.
func (m *verdictMemo) passed(key string) bool {
	if key == "" {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.entries[key]
	if ok {
		m.order.MoveToFront(el)
		m.hits.Add(1)
	}
	return ok
}

// remember records that r (with memo key) passed validation, if its
// operation's verdict depends only on the method, path and query.
func (m *verdictMemo) remember(key string, r *http.Request) {
	if key == "" {
		return
	}
	m.mu.Lock()
	_, known := m.entries[key]
	m.mu.Unlock()
	if known || !m.pathAndQueryOnly(r) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, known := m.entries[key]; known {
		return
	}
	m.entries[key] = m.order.PushFront(key)
	for m.order.Len() > m.max {
		oldest := m.order.Back()
		m.order.Remove(oldest)
		delete(m.entries, oldest.Value.(string))
	}
}

func (m *verdictMemo) pathAndQueryOnly(r *http.Request) bool {
	route, _, err := m.router.FindRoute(r)
	if err != nil {
		return false
	}
	security := route.Operation.Security
	if security == nil {
		security = &m.spec.Security
	}
	if len(*security) > 0 {
		return false
	}
	params := append(openapi3.Parameters{}, route.PathItem.Parameters...)
	params = append(params, route.Operation.Parameters...)
	for _, p := range params {
		if p.Value == nil || p.Value.In == openapi3.ParameterInHeader || p.Value.In == openapi3.ParameterInCookie {
			return false
		}
	}
	return true
}
