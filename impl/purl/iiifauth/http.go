package iiifauth

import (
	"crypto/rand"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"

	"github.com/sitelib/sitesvc/impl/auth"
)

// Handler serves the services, relative to BaseURL (the server strips
// the mount): /probe/{object}/{file}, /access, /done, /token, /token1,
// /logout.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{object}/{file...}", s.probe)
	mux.HandleFunc("OPTIONS /probe/{object}/{file...}", s.probePreflight)
	mux.HandleFunc("GET /access", s.access)
	mux.HandleFunc("GET /done", s.done)
	mux.HandleFunc("GET /token", s.token2)
	mux.HandleFunc("GET /token1", s.token1)
	mux.HandleFunc("GET /logout", s.logout)
	return auth.SessionPages(mux)
}

// session is r's signed-in session, if the site has a sign-in.
func (s *Service) session(r *http.Request) (auth.Session, bool) {
	if s.cfg.Sessions == nil || !s.cfg.Sessions.Configured() {
		return auth.Session{}, false
	}
	return s.cfg.Sessions.Session(r)
}

// probeResult is an AuthProbeResult2.
type probeResult struct {
	Context string  `json:"@context"`
	ID      string  `json:"id"`
	Type    string  `json:"type"`
	Status  int     `json:"status"`
	Heading langMap `json:"heading,omitempty"`
	Note    langMap `json:"note,omitempty"`
}

// probe answers whether the request (its bearer access token, else its
// session) may read the file: the status the file itself would answer,
// in the body of a 200 (the specification's probe result), readable
// from any origin.
func (s *Service) probe(w http.ResponseWriter, r *http.Request) {
	cors(w)
	object, file := r.PathValue("object"), r.PathValue("file")
	status, who, reason := s.cfg.Probe.ProbeAccess(r, object, file)
	if status == http.StatusNotFound {
		http.Error(w, "not found: "+reason, http.StatusNotFound)
		return
	}
	res := probeResult{Context: Context2, ID: s.probeURL(object, file), Type: "AuthProbeResult2", Status: http.StatusOK}
	switch {
	case status == 0:
	case status == http.StatusUnauthorized && who != "":
		res.Status, res.Heading, res.Note = status, en(signInLabel), en(signInNote(who))
	case status == http.StatusForbidden && who != "" && s.identified(r):
		res.Status, res.Heading, res.Note = status, en(noAccessTitle), en(s.noAccessNote(who))
	default:
		res.Status, res.Heading, res.Note = status, en("Not available"), en(reason)
	}
	w.Header().Set("Vary", "Authorization, Cookie")
	writeJSON(w, http.StatusOK, res)
}

// identified reports whether r comes from someone: a valid access
// token, or a signed-in session.
func (s *Service) identified(r *http.Request) bool {
	if token, ok := auth.BearerToken(r); ok {
		_, ok := s.tokens.principal(token)
		return ok
	}
	_, ok := s.session(r)
	return ok
}

// cors lets a viewer on any origin read a probe result: the access
// token travels in the Authorization header, never as a cookie, so no
// credentials are allowed.
func cors(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Headers", "Authorization")
	h.Set("Access-Control-Allow-Methods", "GET")
	h.Set("Access-Control-Max-Age", "600")
}

func (s *Service) probePreflight(w http.ResponseWriter, _ *http.Request) {
	cors(w)
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// access is the access service (2.0, profile active) and the 1.0 login
// service: the client opens it in a new window; it sends the browser
// through the site's sign-in and back to /done, which closes the window.
func (s *Service) access(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Sessions == nil || !s.cfg.Sessions.Configured() {
		s.page(w, http.StatusNotFound, pageData{Title: "Sign-in is not available", Message: "This site has no sign-in configured; restricted items cannot be opened here."})
		return
	}
	if _, ok := s.session(r); ok {
		http.Redirect(w, r, s.doneURL(), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, s.signInURL()+"?return="+url.QueryEscape(s.doneURL()), http.StatusSeeOther)
}

// done is where the sign-in returns: the window closes itself, and the
// viewer that opened it goes on to the token service.
func (s *Service) done(w http.ResponseWriter, r *http.Request) {
	d := pageData{Title: "Signed in", Message: "You are signed in. This window closes itself; if it does not, close it and return to the viewer.", Close: true}
	if _, ok := s.session(r); !ok {
		d = pageData{Title: "Not signed in", Message: "You are not signed in. Close this window and try again.", Close: true}
	}
	s.page(w, http.StatusOK, d)
}

// tokenParams reads the token services' messageId and origin.
func tokenParams(r *http.Request) (messageID, origin string, ok bool) {
	q := r.URL.Query()
	messageID, origin = q.Get("messageId"), q.Get("origin")
	ok = messageID != "" && origin != "" && len(messageID) <= maxParam && len(origin) <= maxParam
	return messageID, origin, ok
}

// token2 is the access token service of 2.0: an HTML page for an iframe
// that posts the token (or the error) to the requesting origin's window.
func (s *Service) token2(w http.ResponseWriter, r *http.Request) {
	messageID, origin, ok := tokenParams(r)
	if !ok {
		s.page(w, http.StatusBadRequest, pageData{Title: "Bad request", Message: "The access token service needs the messageId and origin parameters (IIIF Authorization Flow 2.0)."})
		return
	}
	msg := map[string]any{"@context": Context2, "messageId": messageID}
	sess, signedIn := s.session(r)
	switch {
	case !s.allowedOrigin(origin):
		msg["type"], msg["profile"] = "AuthAccessTokenError2", "invalidOrigin"
		msg["heading"], msg["note"] = en("This viewer cannot show restricted items"), en("The site the viewer runs on is not one this library gives access tokens to.")
	case !signedIn:
		msg["type"], msg["profile"] = "AuthAccessTokenError2", "missingAspect"
		msg["heading"], msg["note"] = en("Not signed in"), en("Sign in to view this item.")
	default:
		token, ttl := s.tokens.issue(sess)
		msg["type"], msg["accessToken"], msg["expiresIn"] = "AuthAccessToken2", token, int(ttl.Seconds())
	}
	s.postMessage(w, origin, msg)
}

// token1 is the access token service of 1.0: with messageId and origin
// a page posting {messageId, accessToken, expiresIn} or {messageId,
// error, description}; without them, the same as JSON.
func (s *Service) token1(w http.ResponseWriter, r *http.Request) {
	messageID, origin, ok := tokenParams(r)
	sess, signedIn := s.session(r)
	msg := map[string]any{}
	status := http.StatusOK
	switch {
	case ok && !s.allowedOrigin(origin):
		msg["error"], msg["description"] = "invalidOrigin", "The site the viewer runs on is not one this library gives access tokens to."
		status = http.StatusForbidden
	case !signedIn:
		msg["error"], msg["description"] = "missingCredentials", "Sign in to view this item."
		status = http.StatusUnauthorized
	default:
		token, ttl := s.tokens.issue(sess)
		msg["accessToken"], msg["expiresIn"] = token, int(ttl.Seconds())
	}
	if !ok {
		if r.URL.Query().Has("messageId") || r.URL.Query().Has("origin") {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalidRequest", "description": "messageId and origin go together, each at most 1024 characters"})
			return
		}
		writeJSON(w, status, msg)
		return
	}
	msg["messageId"] = messageID
	s.postMessage(w, origin, msg)
}

// logout is the logout service: it revokes every access token of the
// browser's session, then ends the session through the site's sign-out
// (a form posting the session's CSRF token, sent by the page itself).
func (s *Service) logout(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(r)
	if !ok {
		s.page(w, http.StatusOK, pageData{Title: "Signed out", Message: "You are signed out. This window closes itself.", Close: true})
		return
	}
	n := s.tokens.revoke(sess)
	s.cfg.Logger.InfoContext(r.Context(), "iiif-auth: access tokens revoked at logout", "name", sess.Principal.Name, "tokens", n)
	s.page(w, http.StatusOK, pageData{Title: "Signing out", Message: "The viewer's access is revoked. Signing you out of the site…",
		SignOutURL: s.cfg.PublicURL + auth.LogoutPath, CSRF: sess.CSRFToken})
}

// postMessage writes the token services' page: one script posting msg to
// origin's window, framable only by that origin.
func (s *Service) postMessage(w http.ResponseWriter, origin string, msg map[string]any) {
	body, err := json.Marshal(msg) // escapes <, > and &: safe inside <script>
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	target, _ := json.Marshal(origin)
	nonce := rand.Text()
	// Any page may frame it: it shows nothing, and the token goes only to
	// origin's window (postMessage's target). A viewer inside an embed
	// frame has ancestors of two origins.
	ancestors := "*"
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; frame-ancestors "+ancestors)
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(http.StatusOK)
	_ = tokenPage.Execute(w, map[string]any{"Nonce": nonce, "Message": template.JS(body), "Origin": template.JS(target)})
}

var tokenPage = template.Must(template.New("token").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Access token</title></head>
<body><script nonce="{{.Nonce}}">window.parent.postMessage({{.Message}}, {{.Origin}});</script></body></html>
`))

type pageData struct {
	Title, Message string
	// Close makes the page close its window (it was opened by a viewer).
	Close bool
	// SignOutURL and CSRF make the page post the site's sign-out.
	SignOutURL, CSRF string
	Nonce            string
}

func (s *Service) page(w http.ResponseWriter, status int, d pageData) {
	d.Nonce = rand.Text()
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-"+d.Nonce+"'; form-action "+s.origin+"; frame-ancestors 'none'")
	w.WriteHeader(status)
	_ = page.Execute(w, d)
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:32rem;padding:0 1rem}</style></head>
<body><h1>{{.Title}}</h1><p id="message">{{.Message}}</p>
{{if .SignOutURL}}<form id="signout" method="post" action="{{.SignOutURL}}"><input type="hidden" name="csrf_token" value="{{.CSRF}}"><button type="submit">Sign out of the site</button></form>
<script nonce="{{.Nonce}}">document.getElementById('signout').submit();</script>{{end}}
{{if .Close}}<script nonce="{{.Nonce}}">window.close();</script>{{end}}
</body></html>
`))
