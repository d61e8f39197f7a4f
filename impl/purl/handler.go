package purl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/yaml"
	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/purl/store"
)

// Media types of the representations.
const (
	typeHTML     = "text/html; charset=utf-8"
	typeXML      = "application/xml; charset=utf-8"
	typeMODS     = "application/mods+xml; charset=utf-8"
	typeManifest = `application/ld+json;profile="http://iiif.io/api/presentation/3/context.json"`
	typeText     = "text/plain; charset=utf-8"
)

// route is what a request path names. The service routes by hand rather
// than through echo: echo cannot tell "/:id" from "/:id.xml" (a parameter
// runs to the next slash), and an invalid druid must be 404, not the 400 a
// validator would give. Every parameter the contract declares is checked
// here.
type route struct {
	kind string // "page", "html", "xml", "mods", "manifest", "file"
	id   string // the raw identifier segment (not yet parsed)
	file string // file name for kind "file"
}

var allowed = map[string]string{
	"page":     "GET, HEAD, DELETE, OPTIONS",
	"html":     "GET, HEAD, OPTIONS",
	"xml":      "GET, HEAD, PUT, OPTIONS",
	"mods":     "GET, HEAD, PUT, OPTIONS",
	"manifest": "GET, HEAD, OPTIONS",
	"file":     "GET, HEAD, OPTIONS",
}

// parseRoute splits the escaped path into segments before unescaping
// them, so an encoded slash stays inside its segment (and then fails the
// druid or file-name check) instead of adding a path level.
func parseRoute(escapedPath string) (route, bool) {
	segs := strings.Split(strings.TrimPrefix(escapedPath, "/"), "/")
	for i, seg := range segs {
		u, err := url.PathUnescape(seg)
		if err != nil {
			return route{}, false
		}
		segs[i] = u
	}
	switch {
	case len(segs) == 1 && segs[0] != "":
		seg := segs[0]
		dot := strings.LastIndexByte(seg, '.')
		if dot < 0 {
			return route{kind: "page", id: seg}, true
		}
		kinds := map[string]string{".html": "html", ".xml": "xml", ".mods": "mods"}
		kind, ok := kinds[seg[dot:]]
		if !ok {
			return route{}, false
		}
		return route{kind: kind, id: seg[:dot]}, true
	case len(segs) == 3 && segs[1] == "iiif" && segs[2] == "manifest":
		return route{kind: "manifest", id: segs[0]}, true
	case len(segs) == 3 && segs[1] == "file":
		return route{kind: "file", id: segs[0], file: segs[2]}, true
	}
	return route{}, false
}

func (s *Service) routes() http.Handler {
	docs, err := publishedSpec(s.cfg.BaseURL)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/openapi.yaml", "/openapi.json":
			if err != nil {
				s.fail(w, r, http.StatusInternalServerError, "contract unavailable: "+err.Error())
				return
			}
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				w.Header().Set("Allow", "GET, HEAD")
				s.fail(w, r, http.StatusMethodNotAllowed, fmt.Sprintf("method not allowed: %s %s (allowed: GET, HEAD)", r.Method, r.URL.Path))
				return
			}
			body, ctype := docs.yaml, "application/yaml; charset=utf-8"
			if r.URL.Path == "/openapi.json" {
				body, ctype = docs.json, "application/json"
			}
			w.Header().Set("Content-Type", ctype)
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Write(body)
			return
		}
		s.serve(w, r)
	})
}

func (s *Service) serve(w http.ResponseWriter, r *http.Request) {
	rt, ok := parseRoute(r.URL.EscapedPath())
	if !ok {
		s.fail(w, r, http.StatusNotFound, fmt.Sprintf("not found: %s is not a PURL of this service", r.URL.Path))
		return
	}
	allow := allowed[rt.kind]
	if !strings.Contains(allow, r.Method) || r.Method == "" {
		w.Header().Set("Allow", allow)
		s.fail(w, r, http.StatusMethodNotAllowed, fmt.Sprintf("method not allowed: %s (allowed: %s)", r.Method, allow))
		return
	}
	if r.Method == http.MethodOptions {
		w.Header().Set("Allow", allow)
		if rt.kind != "page" && rt.kind != "html" {
			setCORS(w)
			w.Header().Set("Access-Control-Allow-Methods", allow)
			w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-None-Match, If-Modified-Since, Range")
			w.Header().Set("Access-Control-Max-Age", "86400")
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	id, err := druid.Parse(rt.id)
	if err != nil {
		s.fail(w, r, http.StatusNotFound, fmt.Sprintf("not found: %q is not a druid", rt.id))
		return
	}
	switch r.Method {
	case http.MethodPut:
		s.put(w, r, id, rt.kind)
		return
	case http.MethodDelete:
		s.delete(w, r, id)
		return
	}
	obj, err := s.object(r.Context(), id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			s.fail(w, r, http.StatusNotFound, fmt.Sprintf("not found: no object %s", id.Qualified()))
			return
		}
		s.cfg.Logger.Error("purl: loading object", "druid", id.Qualified(), "err", err)
		s.fail(w, r, http.StatusInternalServerError, "internal error: the object cannot be read")
		return
	}
	switch rt.kind {
	case "page", "html":
		s.serveRepresentation(w, r, obj, obj.html, typeHTML, false)
	case "xml":
		s.serveRepresentation(w, r, obj, obj.public, typeXML, true)
	case "mods":
		if obj.mods == nil {
			s.fail(w, r, http.StatusNotFound, fmt.Sprintf("not found: %s has no MODS record", id.Qualified()))
			return
		}
		s.serveRepresentation(w, r, obj, obj.modsDoc, typeMODS, true)
	case "manifest":
		s.serveRepresentation(w, r, obj, obj.manifest, typeManifest, true)
	case "file":
		s.serveFile(w, r, obj, rt.file)
	}
}

// serveRepresentation answers GET/HEAD with conditional requests and
// ranges handled by http.ServeContent.
func (s *Service) serveRepresentation(w http.ResponseWriter, r *http.Request, obj *object, rep representation, ctype string, cors bool) {
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("ETag", rep.etag)
	h.Set("Cache-Control", s.cacheControl(true))
	if cors {
		setCORS(w)
	}
	http.ServeContent(w, r, "", obj.lastMod, bytes.NewReader(rep.body))
}

func (s *Service) cacheControl(public bool) string {
	scope := "public"
	if !public {
		scope = "private"
	}
	return fmt.Sprintf("%s, max-age=%d", scope, int(s.cfg.MaxAge/time.Second))
}

func setCORS(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "ETag, Last-Modified, Content-Range, Accept-Ranges, Content-Disposition, Content-Length")
}

func (s *Service) serveFile(w http.ResponseWriter, r *http.Request, obj *object, name string) {
	id := obj.rec.Druid
	f, ok := obj.rec.File(name)
	if !ok {
		s.fail(w, r, http.StatusNotFound, fmt.Sprintf("not found: %s has no file %q", id.Qualified(), name))
		return
	}
	if status, msg := s.fileAccess(r, obj.rec); status != 0 {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="purl"`)
		}
		w.Header().Set("Vary", "Authorization")
		s.fail(w, r, status, msg)
		return
	}
	blob, err := s.store.Open(r.Context(), id, f.Name)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			s.fail(w, r, http.StatusNotFound, fmt.Sprintf("not found: file %q of %s is not in the store", name, id.Qualified()))
			return
		}
		s.cfg.Logger.Error("purl: opening file", "druid", id.Qualified(), "file", name, "err", err)
		s.fail(w, r, http.StatusInternalServerError, "internal error: the file cannot be read")
		return
	}
	defer blob.File.Close()
	world := obj.rec.Rights.WorldReadable(s.cfg.Now())
	h := w.Header()
	h.Set("Content-Type", f.MimeType)
	h.Set("ETag", fmt.Sprintf(`"%x-%x"`, blob.Info.Size(), blob.Info.ModTime().UnixNano()))
	h.Set("Cache-Control", s.cacheControl(world))
	if !world {
		h.Set("Vary", "Authorization")
	}
	disposition := "inline"
	if v := r.URL.Query().Get("download"); v == "true" || v == "1" {
		disposition = "attachment"
	}
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": f.Name}))
	setCORS(w)
	http.ServeContent(w, r, f.Name, blob.Info.ModTime(), blob.File)
}

// fileAccess decides whether the request may read the files of rec:
// 0 when it may, else the status and the reason.
func (s *Service) fileAccess(r *http.Request, rec *record.Record) (int, string) {
	rights := rec.Rights
	now := s.cfg.Now()
	switch {
	case rights.Read == record.AccessNone:
		return http.StatusForbidden, fmt.Sprintf("forbidden: %s is citation only; its files are not available", rec.Druid.Qualified())
	case rights.Embargoed(now):
		return http.StatusForbidden, fmt.Sprintf("forbidden: the files of %s are embargoed until %s", rec.Druid.Qualified(), rights.EmbargoUntil.Format("2006-01-02"))
	case rights.Read == record.AccessWorld:
		return 0, ""
	}
	what := fmt.Sprintf("members of the login group %q", rights.ReadName)
	role := "group:" + rights.ReadName
	if rights.Read == record.AccessLocation {
		what = fmt.Sprintf("readers at the location %q", rights.ReadName)
		role = "location:" + rights.ReadName
		if s.atLocation(r, rights.ReadName) {
			return 0, ""
		}
	}
	token, ok := auth.BearerToken(r)
	if !ok {
		return http.StatusUnauthorized, fmt.Sprintf("unauthorized: the files of %s are readable by %s; send a bearer token with the role %s", rec.Druid.Qualified(), what, role)
	}
	if s.cfg.Tokens == nil {
		return http.StatusUnauthorized, "unauthorized: this service accepts no tokens"
	}
	p, ok := s.cfg.Tokens.Authenticate(token)
	if !ok {
		return http.StatusUnauthorized, "unauthorized: unknown bearer token"
	}
	if !p.Has(role) {
		return http.StatusForbidden, fmt.Sprintf("forbidden: the token of %q lacks the role %s; the files of %s are readable by %s", p.Name, role, rec.Druid.Qualified(), what)
	}
	return 0, ""
}

func (s *Service) atLocation(r *http.Request, location string) bool {
	nets := s.cfg.LocationNetworks[location]
	if len(nets) == 0 {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, n := range nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// fail writes an error: an HTML page for browsers asking for a missing
// page, plain text otherwise.
func (s *Service) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h := w.Header()
	h.Del("ETag")
	h.Del("Last-Modified")
	h.Del("Content-Disposition")
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept")
	h.Set("X-Content-Type-Options", "nosniff")
	if status == http.StatusNotFound && r.Method != http.MethodPut && prefersHTML(r) {
		h.Set("Content-Type", typeHTML)
		w.WriteHeader(status)
		errorPage.Execute(w, map[string]any{"Status": status, "Text": http.StatusText(status), "Message": msg, "Base": s.cfg.BaseURL})
		return
	}
	h.Set("Content-Type", typeText)
	w.WriteHeader(status)
	fmt.Fprintln(w, msg)
}

// prefersHTML reports whether the Accept header asks for text/html before
// (or instead of) plain text, as browsers do.
func prefersHTML(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	iHTML := strings.Index(accept, "text/html")
	if iHTML < 0 {
		return false
	}
	iText := strings.Index(accept, "text/plain")
	return iText < 0 || iHTML < iText
}

var errorPage = template.Must(template.New("error").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{.Status}} {{.Text}}</title></head>
<body>
<h1>{{.Status}} {{.Text}}</h1>
<p>{{.Message}}</p>
<p>Persistent URLs look like <code>{{.Base}}/bb000kk0000</code>.</p>
</body>
</html>
`))

type specDocs struct{ yaml, json []byte }

// publishedSpec is the contract with this deployment's base URL as its
// only server.
func publishedSpec(baseURL string) (specDocs, error) {
	spec, err := purlapi.GetSpec()
	if err != nil {
		return specDocs{}, fmt.Errorf("loading the PURL contract: %w", err)
	}
	spec.Servers = openapi3.Servers{{URL: baseURL, Description: "this deployment"}}
	js, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return specDocs{}, fmt.Errorf("encoding the PURL contract: %w", err)
	}
	ym, err := yaml.JSONToYAML(js)
	if err != nil {
		return specDocs{}, fmt.Errorf("encoding the PURL contract: %w", err)
	}
	return specDocs{yaml: ym, json: js}, nil
}
