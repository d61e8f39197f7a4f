package auth

import "net/http"

// Paths of the site-wide sign-in (docs/auth.md). They sit at the root of
// the public URL, beside the services, because one sign-in serves them all.
const (
	// LoginPath starts a sign-in; its query parameter "return" names the
	// page of this site to come back to.
	LoginPath = "/auth/login"
	// CallbackPath is where the OpenID Connect provider sends the browser
	// back with the authorization code.
	CallbackPath = "/auth/callback"
	// LogoutPath ends the session (POST with the CSRF token; GET shows a
	// confirmation form).
	LogoutPath = "/auth/logout"
	// CSRFHeader carries a page's CSRF token on every write a browser
	// session authorises; pages carry it in <meta name="csrf-token">.
	CSRFHeader = "X-CSRF-Token"
)

// Session is a browser's signed-in session as services see it: who it
// is, with the roles and rights groups the provider's groups map to
// (--group-map), and the CSRF token its pages carry.
type Session struct {
	Principal Principal
	// CSRFToken is written into staff pages as <meta name="csrf-token">
	// and must come back in the X-CSRF-Token header of every write the
	// session cookie authorises.
	CSRFToken string
}

// SessionReader is the sign-in as the services use it: the edge reads a
// request's session to authorise writes and content, pages read it to
// show who is signed in. A nil SessionReader, or one whose Configured is
// false, means sign-in is not configured: every request is anonymous
// unless it carries a bearer token.
type SessionReader interface {
	// Session returns the signed-in session of r, from its session cookie
	// or, in proxy mode, from the trusted proxy's headers; ok is false
	// for an anonymous request.
	Session(r *http.Request) (s Session, ok bool)
	// Configured reports whether a sign-in method is configured.
	Configured() bool
}

// SessionPages serves h, whose every answer is about one browser's
// session or token, as the sign-in's and the IIIF authorization services'
// are: no cache or browser stores one (Cache-Control: no-store) and no
// browser sniffs its type.
func SessionPages(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}
