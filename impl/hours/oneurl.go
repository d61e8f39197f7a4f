package hours

// One URL per resource (issue 15.1): every library, location, term,
// schedule and exception is read, updated and deleted both at its
// links.self (the `.json` URL) and at the URL without `.json`. The
// operations *Bare and *Json of api/hours.yaml are the same operations as
// their counterparts (x-sitesvc-same-as in the contract): the generated
// hoursapi.WithAliases hands them over. A browser's GET of a bare URL is
// given the page (negotiatePage).

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/apiserve"
)

// negotiatePage is the echo pre-middleware giving a browser the HTML page
// at a library's bare URL: a GET of /libraries/{library_id} whose Accept
// prefers text/html to every JSON type is served as
// /libraries/{library_id}.html, and one of the bare collection /libraries
// as the overview /. Every answer at those URLs says Vary: Accept.
func negotiatePage(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method == http.MethodGet && req.URL.Path == "/libraries" {
			c.Response().Header().Add("Vary", "Accept")
			if prefersHTML(req.Header.Values("Accept")) {
				req.URL.Path, req.URL.RawPath = "/", ""
			}
			return next(c)
		}
		rest, ok := strings.CutPrefix(req.URL.Path, "/libraries/")
		if req.Method != http.MethodGet || !ok || rest == "" || strings.ContainsAny(rest, "/.") {
			return next(c)
		}
		c.Response().Header().Add("Vary", "Accept")
		if prefersHTML(req.Header.Values("Accept")) {
			req.URL.Path += ".html"
			req.URL.RawPath = ""
		}
		return next(c)
	}
}

// prefersHTML reports whether Accept rates text/html above every JSON
// media type (a browser's Accept names text/html first and JSON only
// through */*).
func prefersHTML(accept []string) bool {
	html := apiserve.AcceptQuality(accept, "text/html", "application/xhtml+xml")
	return html > 0 && html > apiserve.AcceptQuality(accept, mediaJSONAPI, mediaJSON)
}
