package embed

import (
	"context"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/embed/objectview"
)

// Why a fast path: a cached oEmbed answer is a few hundred bytes already
// rendered, yet routing, request validation against the OpenAPI document
// and the generated parameter binding cost several times what writing it
// does. The answer to a GET of /embed or /iframe depends only on its query
// string (the operations have no header or cookie parameters and no
// security) and on the cached object. So once a query string has passed
// validation and been answered from a cached rendering, the same query
// string is answered from that rendering directly, for as long as the
// object stays fresh in the cache. Anything else (a new query string, an
// expired or evicted object, a rendering not kept) goes the routed way,
// which validates, loads, revalidates and renders.

// answerRef names a rendering of a cached object.
type answerRef struct {
	druid string
	key   renderKey
}

// answerMemo maps the query strings of answered /embed and /iframe GETs to
// the rendering that answered them, least recently used first out past max
// entries per path (it is only a shortcut; the routed path still answers).
type answerMemo struct {
	enabled bool

	embed  *lru.Cache[string, answerRef] // by raw query of GET /embed
	iframe *lru.Cache[string, answerRef] // by raw query of GET /iframe
}

// maxRememberedQuery bounds the length of a remembered query string, and
// so the memo's memory; embedding pages send short canonical URLs.
const maxRememberedQuery = 1024

// newAnswerMemo returns a memo of at most max entries per path. It stays
// disabled (remembers nothing) unless the contract makes the answers depend
// on the query string alone.
func newAnswerMemo(spec *openapi3.T, max int) *answerMemo {
	embed, err := lru.New[string, answerRef](max)
	if err != nil {
		// Only a size below 1, which New never passes.
		panic("embed: answer memo: " + err.Error())
	}
	iframe, _ := lru.New[string, answerRef](max)
	return &answerMemo{
		enabled: queryOnly(spec, "/embed") && queryOnly(spec, "/iframe"),
		embed:   embed,
		iframe:  iframe,
	}
}

// queryOnly reports whether GET path's validation verdict depends only on
// the query string: no security requirement and no parameter outside the
// query.
func queryOnly(spec *openapi3.T, path string) bool {
	item := spec.Paths.Value(path)
	if item == nil || item.Get == nil {
		return false
	}
	op := item.Get
	if (op.Security != nil && len(*op.Security) > 0) || (op.Security == nil && len(spec.Security) > 0) {
		return false
	}
	for _, params := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range params {
			if p.Value == nil || p.Value.In != openapi3.ParameterInQuery {
				return false
			}
		}
	}
	return true
}

func (m *answerMemo) table(path string) *lru.Cache[string, answerRef] {
	switch path {
	case "/embed":
		return m.embed
	case "/iframe":
		return m.iframe
	}
	return nil
}

func (m *answerMemo) get(path, rawQuery string) (answerRef, bool) {
	t := m.table(path)
	if t == nil {
		return answerRef{}, false
	}
	return t.Get(rawQuery)
}

func (m *answerMemo) remember(path, rawQuery string, ref answerRef) {
	t := m.table(path)
	if !m.enabled || t == nil || len(rawQuery) > maxRememberedQuery {
		return
	}
	t.Add(rawQuery, ref)
}

func (m *answerMemo) len() int { return m.embed.Len() + m.iframe.Len() }

// pendingAnswer travels in the context of a routed GET of /embed or
// /iframe: the recorder notes there which rendering answered it, and the
// front handler then remembers it under the query string as the client
// sent it (the validator rewrites the request's query, adding defaults).
type pendingAnswer struct {
	ref      answerRef
	answered bool
}

type pendingAnswerKey struct{}

// recorder is the strict-handler middleware that notes the rendering a
// request was answered from, when the cache entry keeps it. It runs after
// request validation passed: the handlers are only reached then. It also
// hands every answer its request (embedapi.Bind: the viewer assets are
// apiserve.Content), so the service needs no second middleware, whose
// closure would cost an allocation per request.
func (m *answerMemo) recorder(next embedapi.StrictHandlerFunc, _ string) embedapi.StrictHandlerFunc {
	return func(c echo.Context, request any) (any, error) {
		resp, err := next(c, request)
		embedapi.Bind(resp, c.Request())
		if doc, ok := resp.(*documentResponse); ok && err == nil && doc.kept {
			if p, ok := c.Request().Context().Value(pendingAnswerKey{}).(*pendingAnswer); ok {
				p.ref, p.answered = doc.ref, true
			}
		}
		return resp, err
	}
}

// serveRouted passes r to the routed handler and remembers, under r's
// query string as sent, the rendering that answered it.
func (s *Service) serveRouted(routed http.Handler, w http.ResponseWriter, r *http.Request) {
	if !s.answers.enabled || s.answers.table(r.URL.Path) == nil || len(r.URL.RawQuery) > maxRememberedQuery {
		routed.ServeHTTP(w, r)
		return
	}
	rawQuery, p := r.URL.RawQuery, &pendingAnswer{}
	routed.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), pendingAnswerKey{}, p)))
	if p.answered {
		s.answers.remember(r.URL.Path, rawQuery, p.ref)
	}
}

// serveRemembered answers r from a remembered rendering of a fresh cached
// object, and reports whether it did.
func (s *Service) serveRemembered(w http.ResponseWriter, r *http.Request) bool {
	ref, ok := s.answers.get(r.URL.Path, r.URL.RawQuery)
	if !ok {
		return false
	}
	e, fresh := s.cache.get(ref.druid, s.cfg.Now())
	if e == nil || !fresh || e.object.Access.Level == objectview.Dark {
		return false
	}
	rd, ok := e.lookup(ref.key)
	if !ok {
		return false
	}
	if err := writeDocument(w, ref.key.kind, rd); err != nil {
		s.log.DebugContext(r.Context(), "writing a remembered answer", "err", err)
	}
	return true
}

// front is the service's handler: a GET or HEAD of /embed or /iframe is
// answered from a remembered rendering when there is one (HEAD without
// the body, RFC 9110 §9.3.2); everything else goes to the routed handler,
// apiserve's edge and validation (OPTIONS, CORS preflight, 404/405 with
// Allow, HEAD as GET, CORS by operation: the service's policy), which
// remembers what answered a GET of those paths.
func (s *Service) front(routed http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			if !s.serveRemembered(w, r) {
				s.serveRouted(routed, w, r)
			}
		case http.MethodHead:
			if !s.serveRemembered(headWriter{w}, r) {
				s.serveRouted(routed, w, r)
			}
		default:
			routed.ServeHTTP(w, r)
		}
	})
}

// headWriter drops the body and keeps the headers, Content-Length included.
type headWriter struct{ http.ResponseWriter }

func (h headWriter) Write(p []byte) (int, error) { return len(p), nil }
