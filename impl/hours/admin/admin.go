// Package admin is the staff editor of library hours (/hours/admin/,
// issue 19.3): one HTML page and its script, a thin client of the Hours
// JSON:API. The page only says who is signed in and carries the session's
// CSRF token; every read and write the editor makes is a JSON:API request
// the script sends with the session cookie and the X-CSRF-Token header —
// the same operations bearer tokens use, authorised by the same edge. It
// knows nothing of the store.
package admin

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/auth"
)

//go:embed admin.html.tmpl admin.js admin.css
var files embed.FS

var page = template.Must(template.ParseFS(files, "admin.html.tmpl"))

// Config is what the editor needs from the service.
type Config struct {
	// BaseURL is the Hours base URL ({hours_base_url}); the script reads
	// and writes the JSON:API under it.
	BaseURL string
	// SiteURL is the site's public URL (--public-url), under which the
	// sign-in's paths (/auth/login, /auth/logout) are. Empty: the base
	// URL without its last path segment (the default layout,
	// <public-url>/hours).
	SiteURL string
	// Sessions is the site's sign-in; nil or not Configured: the page says
	// sign-in is not configured.
	Sessions auth.SessionReader
	// DocsURL is where the page sends staff when sign-in is not
	// configured.
	DocsURL string
	// Unlisted returns the slugs of the libraries that are not public
	// (docs/hours.md, "Public and not public"): the public list leaves them
	// out, so the page names them to admins, whose editor reads their own
	// documents. Nil: none.
	Unlisted func(ctx context.Context) ([]string, error)
	// Now is the service's clock: the script reads "today" in each
	// library's zone from the instant the page was made, so the editor and
	// the API agree on it. Nil is time.Now.
	Now func() time.Time
}

// Handler serves the editor at paths relative to the editor's root: "/"
// (the page), "/admin.js" and "/admin.css". Every page answer is private
// and not stored (it carries the CSRF token).
func Handler(cfg Config) http.Handler {
	h := &handler{cfg: cfg}
	// A "GET" pattern also answers HEAD, and another method 405 with Allow:
	// the editor's writes go to the JSON:API.
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.page)
	mux.HandleFunc("GET /admin.js", h.asset("admin.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /admin.css", h.asset("admin.css", "text/css; charset=utf-8"))
	return mux
}

type handler struct{ cfg Config }

// pageModel is the template's input.
type pageModel struct {
	// State is "editor", "not-configured", "signed-out" or "no-role".
	State     string
	Base      string
	CSRF      string
	Name      string
	Roles     string
	Admin     bool
	Libraries string // space-separated library slugs the user edits (editors)
	Unlisted  string // space-separated slugs of libraries not public (admins only)
	Now       string // RFC 3339, the service's clock
	LoginURL  string
	LogoutURL string
	DocsURL   string
}

// asset serves the embedded file name.
func (h *handler) asset(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := files.ReadFile(name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	}
}

func (h *handler) page(w http.ResponseWriter, r *http.Request) {
	now := time.Now
	if h.cfg.Now != nil {
		now = h.cfg.Now
	}
	m := pageModel{Base: h.cfg.BaseURL, DocsURL: h.cfg.DocsURL, Now: now().UTC().Format(time.RFC3339)}
	site := h.cfg.SiteURL
	if site == "" {
		site = siteOf(h.cfg.BaseURL)
	}
	site = strings.TrimSuffix(site, "/")
	self := h.cfg.BaseURL + "/admin/"
	m.LoginURL = site + auth.LoginPath + "?" + url.Values{"return": {self}}.Encode()
	m.LogoutURL = site + auth.LogoutPath
	status := http.StatusOK
	switch {
	case h.cfg.Sessions == nil || !h.cfg.Sessions.Configured():
		m.State = "not-configured"
	default:
		s, ok := h.cfg.Sessions.Session(r)
		switch {
		case !ok:
			m.State = "signed-out"
			status = http.StatusUnauthorized
		default:
			m.Name, m.CSRF = s.Principal.Name, s.CSRFToken
			m.Roles = strings.Join(s.Principal.Roles, ", ")
			m.Admin = s.Principal.IsAdmin()
			if m.Admin && h.cfg.Unlisted != nil {
				slugs, err := h.cfg.Unlisted(r.Context())
				if err != nil {
					http.Error(w, fmt.Sprintf("reading the libraries: %v", err), http.StatusInternalServerError)
					return
				}
				m.Unlisted = strings.Join(slugs, " ")
			}
			var libs []string
			for _, role := range s.Principal.Roles {
				if slug, ok := strings.CutPrefix(role, auth.RoleEditorPrefix); ok {
					libs = append(libs, slug)
				}
			}
			slices.Sort(libs)
			m.Libraries = strings.Join(libs, " ")
			m.State = "editor"
			if !m.Admin && len(libs) == 0 {
				m.State = "no-role"
				status = http.StatusForbidden
			}
		}
	}
	var b bytes.Buffer
	if err := page.Execute(&b, m); err != nil {
		http.Error(w, fmt.Sprintf("rendering the editor: %v", err), http.StatusInternalServerError)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Cache-Control", "private, no-store")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Referrer-Policy", "same-origin")
	// The page runs only its own script and talks only to this site.
	hdr.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

// siteOf is base without its last path segment: the public URL when the
// Hours base URL is the default <public-url>/hours.
func siteOf(base string) string {
	u, err := url.Parse(strings.TrimSuffix(base, "/"))
	if err != nil || u.Host == "" {
		return ""
	}
	dir := u.Path
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		dir = dir[:i]
	}
	return u.Scheme + "://" + u.Host + dir
}
