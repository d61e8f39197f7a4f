package hours

import (
	"context"
	"net/http"
	"strings"

	"github.com/sitelib/sitesvc/impl/hours/admin"
)

// editorPrefix is where the staff editor lives under the base URL
// (issue 19.3). It is a page and its script, not an operation of the
// contract: everything it reads and writes goes through the JSON:API.
const editorPrefix = "/admin/"

// docsURL is what the editor links when sign-in is not configured.
const docsURL = "https://github.com/sitelib/sitesvc/blob/main/docs/hours.md#staff-editor"

// withEditor serves the staff editor at /admin/ and everything else with
// api. "/admin" alone is sent on to "/admin/" (the page's relative links
// need the slash).
func (s *Service) withEditor(api http.Handler) http.Handler {
	editor := http.StripPrefix(strings.TrimSuffix(editorPrefix, "/"), admin.Handler(admin.Config{
		BaseURL:  s.cfg.BaseURL,
		SiteURL:  s.cfg.SiteURL,
		Sessions: s.cfg.Sessions,
		DocsURL:  docsURL,
		Unlisted: s.unlistedLibraries,
		Now:      s.cfg.Now,
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == strings.TrimSuffix(editorPrefix, "/"):
			http.Redirect(w, r, s.cfg.BaseURL+editorPrefix, http.StatusMovedPermanently)
		case strings.HasPrefix(r.URL.Path, editorPrefix):
			editor.ServeHTTP(w, r)
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// unlistedLibraries is the slugs of the libraries that are not public, for
// the editor's admins (the public list leaves them out).
func (s *Service) unlistedLibraries(ctx context.Context) ([]string, error) {
	v, err := s.cache.current(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, lib := range v.libraries {
		if !lib.lib.Public {
			out = append(out, lib.lib.Slug)
		}
	}
	return out, nil
}
