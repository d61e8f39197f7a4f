package purl

import (
	"bytes"
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/record"
)

type pageData struct {
	Title        string
	PURL         string
	Druid        string
	Names        []record.Name
	Dates        []string
	Abstract     []string
	Subjects     []string
	Language     []string
	Type         string
	Use          string
	License      string
	Copyright    string
	Citation     string
	Collections  []collectionLink
	Members      []collectionLink
	IsCollection bool
	Access       string
	FilesOpen    bool
	Files        []pageFile
	Versions     []record.Version
	Published    string
	OEmbedJSON   string
	OEmbedXML    string
	IframeURL    string
	XMLURL       string
	MODSURL      string
	ManifestURL  string // "" when the object has no manifest
	HasMODS      bool
}

type pageFile struct {
	Name, URL, MimeType, Size string
}

// renderPage builds the object's HTML page. It shows the MODS record when
// there is one, the Dublin Core of the public XML otherwise.
func (s *Service) renderPage(obj *object, now time.Time) ([]byte, error) {
	rec := obj.rec
	purl := s.purl(rec.Druid)
	q := url.QueryEscape(purl)
	d := pageData{
		Title:        rec.Title(),
		PURL:         purl,
		Druid:        rec.Druid.Qualified(),
		Collections:  obj.collection,
		Members:      obj.members,
		IsCollection: rec.ObjectType == "collection",
		Access:       rec.Rights.Summary(now),
		FilesOpen:    rec.Rights.WorldReadable(now),
		Versions:     rec.Versions,
		Published:    rec.Published.UTC().Format("2006-01-02 15:04 MST"),
		OEmbedJSON:   s.cfg.EmbedBaseURL + "/embed?url=" + q + "&format=json",
		OEmbedXML:    s.cfg.EmbedBaseURL + "/embed?url=" + q + "&format=xml",
		IframeURL:    s.cfg.EmbedBaseURL + "/iframe?url=" + q,
		XMLURL:       purl + ".xml",
		MODSURL:      purl + ".mods",
		HasMODS:      obj.modsDoc.body != nil,
		Use:          rec.Rights.UseStatement,
		License:      rec.Rights.License,
		Copyright:    rec.Rights.Copyright,
		Abstract:     rec.DC.Description,
		Subjects:     rec.DC.Subject,
		Dates:        rec.DC.Date,
		Language:     rec.DC.Language,
	}
	if rec.HasManifest() {
		d.ManifestURL = purl + "/iiif/manifest"
	}
	for _, c := range rec.DC.Creator {
		d.Names = append(d.Names, record.Name{Display: c, Roles: []string{"creator"}})
	}
	if len(rec.DC.Type) > 0 {
		d.Type = rec.DC.Type[0]
	}
	if m := obj.mods; m != nil {
		d.Title = m.Title
		d.Names = m.Names
		if len(m.Dates) > 0 {
			d.Dates = m.Dates
		}
		if len(m.Abstract) > 0 {
			d.Abstract = m.Abstract
		}
		if len(m.Subjects) > 0 {
			d.Subjects = m.Subjects
		}
		if len(m.Language) > 0 {
			d.Language = m.Language
		}
		if m.TypeOfResource != "" {
			d.Type = m.TypeOfResource
		}
		if m.UseStatement != "" {
			d.Use = m.UseStatement
		}
		d.Citation = m.PreferredCitation
	}
	for _, f := range rec.Files() {
		d.Files = append(d.Files, pageFile{
			Name:     f.Name,
			URL:      purl + "/file/" + url.PathEscape(f.Name) + "?download=true",
			MimeType: f.MimeType,
			Size:     humanSize(f.Size),
		})
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func humanSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"join": strings.Join,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<link rel="canonical" href="{{.PURL}}">
<link rel="alternate" type="application/json+oembed" href="{{.OEmbedJSON}}" title="{{.Title}}">
<link rel="alternate" type="text/xml+oembed" href="{{.OEmbedXML}}" title="{{.Title}}">
<link rel="alternate" type="application/xml" href="{{.XMLURL}}" title="Public XML record">
{{- if .HasMODS}}
<link rel="alternate" type="application/mods+xml" href="{{.MODSURL}}" title="MODS record">
{{- end}}
{{- if .ManifestURL}}
<link rel="alternate" type="application/ld+json" href="{{.ManifestURL}}" title="IIIF manifest">
{{- end}}
{{- range .Collections}}
<link rel="up" href="{{.URL}}" title="{{.Title}}">
{{- end}}
<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;line-height:1.45;color:#222}
h1{font-size:1.6rem;margin-bottom:.25rem}
.purl{color:#555;font-size:.9rem;word-break:break-all}
#viewer{height:31.25rem;border:1px solid #ccc;margin:1rem 0;background:#f6f6f6}
#viewer iframe{width:100%;height:100%;border:0}
dt{font-weight:600;margin-top:.6rem}
dd{margin-left:1rem}
.access{padding:.5rem .75rem;background:#fff6e0;border-left:4px solid #d9a400}
table{border-collapse:collapse}td,th{padding:.2rem .6rem;text-align:left;border-bottom:1px solid #ddd}
</style>
</head>
<body>
<main>
<h1 id="title">{{.Title}}</h1>
<p class="purl">Persistent URL: <a href="{{.PURL}}">{{.PURL}}</a></p>
{{- if not .IsCollection}}
<section id="viewer" aria-label="Viewer" data-oembed="{{.OEmbedJSON}}" data-iframe="{{.IframeURL}}" data-title="{{.Title}}">
<noscript><iframe src="{{.IframeURL}}" title="Viewer: {{.Title}}" allowfullscreen></iframe></noscript>
</section>
{{- end}}
<p class="access" id="access">{{.Access}}</p>
<section aria-labelledby="description-heading">
<h2 id="description-heading">Description</h2>
<dl>
{{- if .Names}}
<dt>Creators and contributors</dt>
{{- range .Names}}
<dd>{{.Display}}{{if .Roles}} ({{join .Roles ", "}}){{end}}</dd>
{{- end}}
{{- end}}
{{- if .Dates}}
<dt>Dates</dt>
{{- range .Dates}}<dd>{{.}}</dd>{{end}}
{{- end}}
{{- if .Type}}
<dt>Type</dt><dd>{{.Type}}</dd>
{{- end}}
{{- if .Language}}
<dt>Language</dt>
{{- range .Language}}<dd>{{.}}</dd>{{end}}
{{- end}}
{{- if .Abstract}}
<dt>Abstract</dt>
{{- range .Abstract}}<dd>{{.}}</dd>{{end}}
{{- end}}
{{- if .Subjects}}
<dt>Subjects</dt>
{{- range .Subjects}}<dd>{{.}}</dd>{{end}}
{{- end}}
{{- if .Collections}}
<dt>Collection</dt>
{{- range .Collections}}<dd><a href="{{.URL}}">{{.Title}}</a></dd>{{end}}
{{- end}}
</dl>
</section>
<section aria-labelledby="access-heading">
<h2 id="access-heading">Access and use</h2>
<dl>
{{- if .Use}}
<dt>Use and reproduction</dt><dd>{{.Use}}</dd>
{{- end}}
{{- if .License}}
<dt>License</dt><dd><a href="{{.License}}" rel="license">{{.License}}</a></dd>
{{- end}}
{{- if .Copyright}}
<dt>Copyright</dt><dd>{{.Copyright}}</dd>
{{- end}}
{{- if .Citation}}
<dt>Preferred citation</dt><dd id="citation">{{.Citation}}</dd>
{{- end}}
</dl>
</section>
{{- if .IsCollection}}
<section aria-labelledby="members-heading">
<h2 id="members-heading">Items in this collection</h2>
{{- if .Members}}
<ul id="members">
{{- range .Members}}
<li><a href="{{.URL}}">{{.Title}}</a></li>
{{- end}}
</ul>
{{- else}}
<p>No published items yet.</p>
{{- end}}
</section>
{{- end}}
{{- if .Files}}
<section aria-labelledby="files-heading">
<h2 id="files-heading">Downloads</h2>
{{- if not .FilesOpen}}
<p>{{.Access}}.</p>
{{- end}}
<table>
<thead><tr><th scope="col">File</th><th scope="col">Type</th><th scope="col">Size</th></tr></thead>
<tbody>
{{- range .Files}}
<tr><td><a href="{{.URL}}" download>{{.Name}}</a></td><td>{{.MimeType}}</td><td>{{.Size}}</td></tr>
{{- end}}
</tbody>
</table>
</section>
{{- end}}
<section aria-labelledby="records-heading">
<h2 id="records-heading">Records</h2>
<ul>
<li><a href="{{.XMLURL}}">Public XML record</a></li>
{{- if .HasMODS}}
<li><a href="{{.MODSURL}}">MODS record</a></li>
{{- end}}
{{- if .ManifestURL}}
<li><a href="{{.ManifestURL}}">IIIF manifest</a></li>
{{- end}}
</ul>
<p>{{.Druid}}, published {{.Published}}{{range .Versions}}; version {{.ID}}{{if .Description}}: {{.Description}}{{end}}{{end}}.</p>
</section>
</main>
<script>
(function () {
  var box = document.getElementById("viewer");
  if (!box || !window.fetch) { return; }
  function iframe(src) {
    var f = document.createElement("iframe");
    f.src = src;
    f.title = "Viewer: " + box.getAttribute("data-title");
    f.setAttribute("allowfullscreen", "");
    return f;
  }
  fetch(box.getAttribute("data-oembed"), { headers: { Accept: "application/json" } })
    .then(function (r) { if (!r.ok) { throw new Error("oEmbed answered " + r.status); } return r.json(); })
    .then(function (o) {
      var holder = document.createElement("div");
      holder.style.height = "100%";
      holder.innerHTML = o.html;
      box.replaceChildren(holder);
      box.setAttribute("data-state", "oembed");
    })
    .catch(function () {
      box.replaceChildren(iframe(box.getAttribute("data-iframe")));
      box.setAttribute("data-state", "iframe");
    });
})();
</script>
</body>
</html>
`))
