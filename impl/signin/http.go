package signin

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/server"
)

// Handler serves the sign-in's paths, relative to <public-url>/auth (the
// server strips the mount): /login, /callback, /logout, the status page
// / and its JSON /whoami.
func (s *SignIn) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.status)
	mux.HandleFunc("GET /whoami", s.whoami)
	mux.HandleFunc("GET /login", s.login)
	mux.HandleFunc("GET /callback", s.callback)
	mux.HandleFunc("GET /logout", s.logoutForm)
	mux.HandleFunc("POST /logout", s.logout)
	return auth.SessionPages(mux)
}

// IndexLinks are the sign-in's entries on the site's index page.
func (s *SignIn) IndexLinks() []server.Link {
	if !s.Configured() {
		return []server.Link{{Title: "Sign-in is not configured (docs/auth.md)", URL: s.statusURL()}}
	}
	return []server.Link{{Title: "Sign in, see who is signed in, sign out", URL: s.statusURL()}}
}

// url is the absolute URL of one of the sign-in's paths (auth.LoginPath…).
func (s *SignIn) url(path string) string {
	return s.public.Scheme + "://" + s.public.Host + s.base + path
}

// statusURL is the status page, where sign-out lands.
func (s *SignIn) statusURL() string { return s.url("/auth/") }

func (s *SignIn) whoami(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Configured bool     `json:"configured"`
		Mode       string   `json:"mode,omitempty"`
		SignedIn   bool     `json:"signedIn"`
		Name       string   `json:"name,omitempty"`
		Roles      []string `json:"roles,omitempty"`
	}{Configured: s.Configured(), Mode: s.Mode()}
	if sess, ok := s.Session(r); ok {
		out.SignedIn, out.Name, out.Roles = true, sess.Principal.Name, sess.Principal.Roles
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func (s *SignIn) status(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Sign-in", Configured: s.Configured(), LoginURL: s.url(auth.LoginPath), LogoutURL: s.url(auth.LogoutPath), Home: s.url("/")}
	if sess, ok := s.Session(r); ok {
		p.SignedIn, p.Name, p.Roles, p.CSRF = true, sess.Principal.Name, sess.Principal.Roles, sess.CSRFToken
	}
	s.render(w, http.StatusOK, p)
}

// login starts a sign-in: with OpenID Connect it keeps state, nonce and
// the PKCE verifier in a fresh (not yet signed-in) session and sends the
// browser to the provider; in proxy mode the proxy has already signed
// the person in (it protects this path) or has not been set up to.
func (s *SignIn) login(w http.ResponseWriter, r *http.Request) {
	target, err := returnTarget(s.public, r.URL.Query().Get("return"))
	if err != nil {
		s.fail(w, http.StatusBadRequest, "Sign-in refused: "+err.Error()+" ("+s.url("/")+"…).", "")
		return
	}
	if !s.Configured() {
		s.fail(w, http.StatusNotFound, "Sign-in is not configured on this site (see docs/auth.md).", "")
		return
	}
	if _, ok := s.Session(r); ok {
		http.Redirect(w, r, target, http.StatusSeeOther)
		return
	}
	if s.proxy != nil {
		msg := "Sign-in happens at the campus sign-in proxy, and this request did not come through it signed in."
		if !s.proxy.fromProxy(r) {
			msg += " The proxy must protect " + auth.LoginPath + " (docs/auth.md)."
		}
		s.fail(w, http.StatusUnauthorized, msg, "")
		return
	}
	// The browser's pending sign-in session when it has one (a second
	// click on "Sign in" replaces its state), else a new one; either
	// lives only as long as a sign-in may take.
	ctx, ok := s.load(r)
	if !ok {
		if ctx, err = s.sessions.Load(r.Context(), ""); err != nil {
			s.fail(w, http.StatusInternalServerError, "The sign-in could not start a session.", "")
			return
		}
	}
	s.sessions.SetDeadline(ctx, time.Now().Add(PendingSignInTimeout))
	state, nonce, verifier := randomToken(), randomToken(), randomToken()
	dest, err := s.oidc.authCodeURL(ctx, state, nonce, verifier)
	if err != nil {
		s.fail(w, http.StatusBadGateway, "Sign-in is not available: "+err.Error(), "")
		return
	}
	s.sessions.Put(ctx, keyState, state)
	s.sessions.Put(ctx, keyNonce, nonce)
	s.sessions.Put(ctx, keyVerifier, verifier)
	s.sessions.Put(ctx, keyReturn, target)
	if !s.commit(ctx, w) {
		s.fail(w, http.StatusInternalServerError, "The sign-in could not store its session.", "")
		return
	}
	http.Redirect(w, r, dest, http.StatusFound)
}

// commit stores a session and sets its cookie.
func (s *SignIn) commit(ctx context.Context, w http.ResponseWriter) bool {
	token, expiry, err := s.sessions.Commit(ctx)
	if err != nil {
		s.logger.ErrorContext(ctx, "sign-in: storing a session", "err", err)
		return false
	}
	s.sessions.WriteSessionCookie(ctx, w, token, expiry)
	return true
}

// callback finishes a sign-in: the state must be the one this browser's
// session keeps (one use only), the code is redeemed with the PKCE
// verifier, and the session gets a new id, the person and a CSRF token.
func (s *SignIn) callback(w http.ResponseWriter, r *http.Request) {
	if s.oidc == nil {
		s.fail(w, http.StatusNotFound, "Sign-in with OpenID Connect is not configured on this site.", "")
		return
	}
	again := s.url(auth.LoginPath)
	ctx, ok := s.load(r)
	if !ok {
		s.fail(w, http.StatusBadRequest, "This sign-in has no session in this browser (cookies blocked, or it expired): start again.", again)
		return
	}
	state, verifier, nonce, target := s.sessions.GetString(ctx, keyState), s.sessions.GetString(ctx, keyVerifier), s.sessions.GetString(ctx, keyNonce), s.sessions.GetString(ctx, keyReturn)
	if target != "" {
		again += "?return=" + url.QueryEscape(target)
	}
	q := r.URL.Query()
	if state == "" || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
		s.fail(w, http.StatusBadRequest, "This sign-in was not started in this browser, or was already used: start again.", again)
		return
	}
	for _, k := range []string{keyState, keyVerifier, keyNonce, keyReturn} {
		s.sessions.Remove(ctx, k)
	}
	if e := q.Get("error"); e != "" {
		s.commit(ctx, w)
		s.fail(w, http.StatusForbidden, "The sign-in provider did not sign you in: "+e+" "+q.Get("error_description"), again)
		return
	}
	who, err := s.oidc.exchange(r.Context(), q.Get("code"), verifier, nonce)
	if err != nil {
		s.logger.WarnContext(r.Context(), "sign-in: the provider's answer was refused", "err", err)
		s.commit(ctx, w)
		s.fail(w, http.StatusBadGateway, "The sign-in could not be completed: "+err.Error(), again)
		return
	}
	// A new id at sign-in: an id fixed before (by anyone who could set
	// this browser's cookie) is worth nothing after.
	if err := s.sessions.RenewToken(ctx); err != nil {
		s.fail(w, http.StatusInternalServerError, "The sign-in could not renew its session.", again)
		return
	}
	s.sessions.Put(ctx, keyName, who.name)
	s.sessions.Put(ctx, keyRoles, strings.Join(s.cfg.GroupMap.Roles(who.groups), "\n"))
	s.sessions.Put(ctx, keyCSRF, randomToken())
	s.sessions.Put(ctx, keyIDToken, who.idToken)
	s.sessions.Put(ctx, keyTouched, time.Now().UnixMilli())
	if !s.commit(ctx, w) {
		s.fail(w, http.StatusInternalServerError, "The sign-in could not store its session.", again)
		return
	}
	s.logger.InfoContext(r.Context(), "signed in", "name", who.name, "groups", who.groups)
	if target == "" {
		target = s.url("/")
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// logoutForm asks before signing out (a GET changes nothing).
func (s *SignIn) logoutForm(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.Session(r)
	if !ok {
		http.Redirect(w, r, s.statusURL(), http.StatusSeeOther)
		return
	}
	s.render(w, http.StatusOK, page{Title: "Sign out", Configured: true, SignedIn: true, Confirm: true, Name: sess.Principal.Name, Roles: sess.Principal.Roles, CSRF: sess.CSRFToken, LogoutURL: s.url(auth.LogoutPath), Home: s.url("/")})
}

// logout ends the session (POST with its CSRF token, as a form field or
// the header), then the provider's session through its end_session
// endpoint when it has one.
func (s *SignIn) logout(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.Session(r)
	if !ok {
		http.Redirect(w, r, s.statusURL(), http.StatusSeeOther)
		return
	}
	sent := r.Header.Get(auth.CSRFHeader)
	if sent == "" {
		r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
		sent = r.PostFormValue("csrf_token")
	}
	if sess.CSRFToken == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(sess.CSRFToken)) != 1 {
		s.fail(w, http.StatusForbidden, "Sign-out needs this page's CSRF token: use the Sign out button of a page of this site. You are still signed in.", s.url(auth.LogoutPath))
		return
	}
	if s.proxy != nil {
		if s.proxy.logoutURL != "" {
			http.Redirect(w, r, s.proxy.logoutURL, http.StatusSeeOther)
			return
		}
		s.fail(w, http.StatusOK, "You signed in at the campus sign-in: close the browser to sign out.", "")
		return
	}
	ctx, ok := s.load(r)
	if !ok {
		http.Redirect(w, r, s.statusURL(), http.StatusSeeOther)
		return
	}
	idToken := s.sessions.GetString(ctx, keyIDToken)
	if err := s.sessions.Destroy(ctx); err != nil {
		s.logger.ErrorContext(r.Context(), "sign-in: ending a session", "err", err)
		s.fail(w, http.StatusInternalServerError, "The session could not be ended; you may still be signed in.", "")
		return
	}
	s.sessions.WriteSessionCookie(ctx, w, "", time.Time{})
	s.logger.InfoContext(r.Context(), "signed out", "name", sess.Principal.Name)
	if dest := s.oidc.logoutURL(r.Context(), idToken, s.statusURL()); dest != "" {
		http.Redirect(w, r, dest, http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, s.statusURL(), http.StatusSeeOther)
}

// fail answers a page with a message and, when given, a link to try again.
func (s *SignIn) fail(w http.ResponseWriter, status int, msg, again string) {
	s.render(w, status, page{Title: "Sign-in", Configured: s.Configured(), Message: msg, Again: again, Home: s.url("/")})
}

type page struct {
	Title                string
	Configured, SignedIn bool
	Confirm              bool
	Name                 string
	Roles                []string
	CSRF                 string
	Message, Again       string
	LoginURL, LogoutURL  string
	Home                 string
}

func (s *SignIn) render(w http.ResponseWriter, status int, p page) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// No form-action: sign-out's form is redirected on to the provider's
	// end_session endpoint, which form-action would block.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.WriteHeader(status)
	if err := pageTemplate.Execute(w, p); err != nil && !errors.Is(err, http.ErrHandlerTimeout) {
		s.logger.Error("sign-in: rendering a page", "err", err)
	}
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{{if .CSRF}}<meta name="csrf-token" content="{{.CSRF}}">{{end}}
<title>{{.Title}}</title>
<style>
body{font:1rem/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
button,a.button{font:inherit;padding:.4rem 1rem;border:1px solid #1a4d8f;border-radius:4px;background:#1a4d8f;color:#fff;text-decoration:none;cursor:pointer}
.message{padding:.75rem 1rem;border-left:4px solid #b3261e;background:#fbeaea}
code{background:#f2f2f2;padding:0 .2rem}
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
{{if .Message}}<p class="message" role="alert">{{.Message}}</p>{{if .Again}}<p><a class="button" href="{{.Again}}">Sign in again</a></p>{{end}}
{{else if not .Configured}}<p id="signin-state">Sign-in is not configured on this site: staff pages cannot be used, and writes need a bearer token (docs/auth.md).</p>
{{else if .SignedIn}}<p id="signin-state">Signed in as <strong>{{.Name}}</strong>.</p>
<p>Roles: {{range $i, $r := .Roles}}{{if $i}}, {{end}}<code>{{$r}}</code>{{else}}none (ask an administrator to map one of your groups with --group-map){{end}}</p>
<form method="post" action="{{.LogoutURL}}">
<input type="hidden" name="csrf_token" value="{{.CSRF}}">
{{if .Confirm}}<p>Sign out of this site{{/* and the provider */}}?</p>{{end}}
<button type="submit">Sign out</button>
</form>
{{else}}<p id="signin-state">Not signed in.</p>
<p><a class="button" href="{{.LoginURL}}">Sign in</a></p>
{{end}}
<p><a href="{{.Home}}">Home</a></p>
</main>
</body>
</html>
`))
