package server

import (
	"html/template"
	"net/http"
)

var indexPage = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sitesvc</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 50rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; }
h2 { margin-top: 2rem; border-bottom: 1px solid #ccc; }
code { background: #f4f4f4; padding: 0 .2em; }
</style>
</head>
<body>
<h1>sitesvc</h1>
<p>The library site services running in this process.</p>
{{range .}}
<section>
<h2>{{.Title}}</h2>
<p>Base URL: <a href="{{.BaseURL}}"><code>{{.BaseURL}}</code></a></p>
<ul>
{{range .Links}}<li><a href="{{.URL}}">{{.Title}}</a></li>
{{end}}</ul>
</section>
{{end}}
<h2>Operations</h2>
<ul>
<li><a href="/healthz">/healthz</a> — the process is up</li>
<li><a href="/readyz">/readyz</a> — every service can answer</li>
<li><a href="/metrics">/metrics</a> — Prometheus metrics</li>
</ul>
</body>
</html>
`))

var serviceTitles = map[string]string{
	"purl":  "PURL — persistent URLs of repository objects",
	"embed": "Embed — oEmbed and the iframe viewer",
	"hours": "Hours — library opening hours (JSON:API)",
	"soap":  "Algorithm (SOAP) — HIV-1 drug resistance",
	"auth":  "Staff sign-in",
}

type indexSection struct {
	Title   string
	BaseURL string
	Links   []Link
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	var sections []indexSection
	for _, m := range s.cfg.Mounts {
		title := serviceTitles[m.Service.Name()]
		if title == "" {
			title = m.Service.Name()
		}
		sec := indexSection{Title: title, BaseURL: m.BaseURL, Links: m.Contracts}
		if ix, ok := m.Service.(Indexer); ok {
			seen := map[string]bool{}
			for _, l := range sec.Links {
				seen[l.URL] = true
			}
			for _, l := range ix.IndexLinks() {
				if !seen[l.URL] {
					seen[l.URL] = true
					sec.Links = append(sec.Links, l)
				}
			}
		}
		sections = append(sections, sec)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := indexPage.Execute(w, sections); err != nil {
		s.cfg.Logger.ErrorContext(r.Context(), "rendering index page", "err", err)
	}
}
